/*
 * A test driver for Simon Tatham's Black Box, built by tests/tatham.rs from
 * his collection's source (not part of bbx): it loads a save file through
 * his midend, as his program's Load does, and prints what his program then
 * holds, so that the tests compare it with bbx's game.
 *
 * Usage: tatham_driver FILE
 *
 * Prints, one fact a line:
 *   refused MESSAGE           his midend refused the file (exit status 2)
 *   states N at P             the states of his undo chain, and the one shown
 *   status S                  his game_status: 0 playing, 1 won, -1 lost
 *   reveal R                  1 when the answer is shown
 *   laser N hit|reflect       a laser the player fired and its result
 *   laser N exit M label L    an exit pair, with the number his board shows
 *                             (the lasers a reveal adds to show where the
 *                             guess was wrong are left out: they are those
 *                             of the state before the reveal)
 *   ball X,Y                  a ball the player placed (from 1)
 *   lock X,Y                  a locked cell (from 1)
 * then a line "save" and the file his midend writes when saving it again.
 *
 * The midend and the game are compiled into this one file so that the
 * state his midend stands at can be read.
 */

#include "midend.c"
/* A name both files define as static. */
#define encode_params blackbox_encode_params
#include "blackbox.c"

static bool read_file(void *ctx, void *buf, int len)
{
    return fread(buf, 1, len, (FILE *)ctx) == (size_t)len;
}

static void write_out(void *ctx, const void *buf, int len)
{
    fwrite(buf, 1, len, (FILE *)ctx);
}

int main(int argc, char **argv)
{
    FILE *f;
    midend *me;
    const char *err;
    const game_state *s, *fired;
    int n, x, y, unused;

    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 1;
    }
    f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    me = midend_new(NULL, &thegame, NULL, NULL);
    err = midend_deserialise(me, read_file, f);
    fclose(f);
    if (err) {
        printf("refused %s\n", err);
        return 2;
    }
    s = fired = me->states[me->statepos - 1].state;
    if (s->reveal && me->statepos >= 2 &&
        !me->states[me->statepos - 2].state->reveal)
        fired = me->states[me->statepos - 2].state;
    printf("states %d at %d\n", me->nstates, me->statepos);
    printf("status %d\n", midend_status(me));
    printf("reveal %d\n", s->reveal ? 1 : 0);
    for (n = 0; n < fired->nlasers; n++) {
        unsigned int e = fired->exits[n];
        if (e == LASER_EMPTY)
            continue;
        if (e & LASER_HIT)
            printf("laser %d hit\n", n);
        else if (e & LASER_REFLECT)
            printf("laser %d reflect\n", n);
        else {
            range2grid(fired, n, &x, &y, &unused);
            printf("laser %d exit %u label %u\n", n, e & ~LASER_FLAGMASK,
                   GRID(fired, x, y) & ~LASER_FLAGMASK);
        }
    }
    for (y = 1; y <= s->h; y++)
        for (x = 1; x <= s->w; x++)
            if (GRID(s, x, y) & BALL_GUESS)
                printf("ball %d,%d\n", x, y);
    for (y = 1; y <= s->h; y++)
        for (x = 1; x <= s->w; x++)
            if (GRID(s, x, y) & BALL_LOCK)
                printf("lock %d,%d\n", x, y);
    printf("save\n");
    midend_serialise(me, write_out, stdout);
    midend_free(me);
    return 0;
}
