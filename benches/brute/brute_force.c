/*
 * An independent brute force of a square Black Box configuration's
 * ambiguity table, written apart from bbx (it shares no code with it), to
 * measure the census against and to check its tables.
 *
 * It traces every ray of every molecule from scratch on a board of bytes,
 * stores each molecule's spectrum (one byte a border position), sorts all
 * of them in place (an MSD radix sort on bytes), and counts the runs of
 * equal spectra: how many spectra n molecules share, for every n. No
 * symmetry, no records, no groups: the bare table.
 *
 *     cc -O2 -march=native -pthread -o brute_force benches/brute/brute_force.c
 *     ./brute_force ATOMS WIDTH [THREADS]      e.g. ./brute_force 6 8 2
 *
 * Prints, for each n of 2 or more, the spectra shared by exactly n
 * molecules and those molecules (bbx's "with rot / sym" columns), then the
 * molecules with a spectrum of their own; the time of each phase goes to
 * standard error. Memory: one byte per border position per molecule
 * (A6_B8: 75 million molecules of 32 bytes, 2.4 GB).
 *
 * The rules (standard): a ray standing on a cell X heading d, with A the
 * cell ahead and L, R the cells diagonally ahead: an atom on A absorbs it;
 * atoms on both L and R reflect it; an atom on one of them turns it 90
 * degrees away from it, on X; otherwise it moves to A. At entry it stands
 * just outside the box, where an atom on one diagonal alone reflects it.
 * A ray that comes out where it entered is reflected.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAXW = 16, MAXP = 4 * MAXW };

static int W, ATOMS, P, CELLS, THREADS = 2;
static int S; /* stride of the padded board */
static uint64_t TOTAL;
static uint8_t *spectra; /* TOTAL records of P bytes */
static int entry_cell[MAXP], entry_dir[MAXP];
static int port_at[(MAXW + 2) * (MAXW + 2)]; /* ring cell -> port, -1 elsewhere */
static int dstep[4];                          /* N E S W */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t choose(int n, int k) {
    if (k < 0 || k > n) return 0;
    uint64_t r = 1;
    for (int i = 1; i <= k; i++) r = r * (uint64_t)(n - k + i) / (uint64_t)i;
    return r;
}

static void setup(void) {
    S = W + 2;
    dstep[0] = -S; dstep[1] = 1; dstep[2] = S; dstep[3] = -1;
    for (int i = 0; i < S * S; i++) port_at[i] = -1;
    int p = 0;
    /* Left side, rows top to bottom, heading east. */
    for (int r = 1; r <= W; r++, p++) { entry_cell[p] = r * S; entry_dir[p] = 1; }
    /* Bottom side, columns left to right, heading north. */
    for (int c = 1; c <= W; c++, p++) { entry_cell[p] = (W + 1) * S + c; entry_dir[p] = 0; }
    /* Right side, rows bottom to top, heading west. */
    for (int r = W; r >= 1; r--, p++) { entry_cell[p] = r * S + W + 1; entry_dir[p] = 3; }
    /* Top side, columns right to left, heading south. */
    for (int c = W; c >= 1; c--, p++) { entry_cell[p] = c; entry_dir[p] = 2; }
    for (int q = 0; q < P; q++) port_at[entry_cell[q]] = q;
}

/* The outcome of the ray from port p on board b: 0 absorbed, 1 reflected,
   2 + k out at port k. */
static int trace(const uint8_t *b, int p) {
    int x = entry_cell[p], d = entry_dir[p];
    int a = x + dstep[d];
    int l = a + dstep[(d + 3) & 3], r = a + dstep[(d + 1) & 3];
    if (b[a]) return 0;
    if (b[l] || b[r]) return 1;
    x = a;
    for (long steps = 0;; steps++) {
        if (steps > 64L * S * S) { fprintf(stderr, "a ray does not end\n"); exit(2); }
        a = x + dstep[d];
        if (b[a]) return 0;
        l = a + dstep[(d + 3) & 3];
        r = a + dstep[(d + 1) & 3];
        if (b[l] && b[r]) return 1;
        if (b[l]) { d = (d + 1) & 3; continue; }
        if (b[r]) { d = (d + 3) & 3; continue; }
        x = a;
        if (port_at[x] >= 0) return port_at[x] == p ? 1 : 2 + port_at[x];
    }
}

struct span { uint64_t first, last; };

static void *trace_span(void *arg) {
    struct span *s = arg;
    int c[MAXW * MAXW];
    /* Unrank s->first: the s->first-th combination in lexicographic order. */
    uint64_t rest = s->first;
    int cell = 0;
    for (int i = 0; i < ATOMS; i++) {
        for (;; cell++) {
            uint64_t with = choose(CELLS - cell - 1, ATOMS - i - 1);
            if (rest < with) break;
            rest -= with;
        }
        c[i] = cell++;
    }
    uint8_t board[(MAXW + 2) * (MAXW + 2)];
    memset(board, 0, sizeof board);
    for (uint64_t m = s->first; m < s->last; m++) {
        for (int i = 0; i < ATOMS; i++) board[(c[i] / W + 1) * S + c[i] % W + 1] = 1;
        uint8_t *out = spectra + m * (uint64_t)P;
        memset(out, 0xFF, P);
        for (int p = 0; p < P; p++) {
            if (out[p] != 0xFF) continue;
            int o = trace(board, p);
            out[p] = (uint8_t)o;
            if (o >= 2) out[o - 2] = (uint8_t)(2 + p); /* the same path backwards */
        }
        for (int i = 0; i < ATOMS; i++) board[(c[i] / W + 1) * S + c[i] % W + 1] = 0;
        /* Next combination. */
        int i = ATOMS - 1;
        while (i >= 0 && c[i] == CELLS - ATOMS + i) i--;
        if (i < 0) break;
        c[i]++;
        for (int j = i + 1; j < ATOMS; j++) c[j] = c[j - 1] + 1;
    }
    return NULL;
}

/* In-place MSD radix sort (American flag sort) of n records from byte
   `depth` on. */
static void swap_rec(uint8_t *a, uint8_t *b) {
    uint8_t t[MAXP];
    memcpy(t, a, P); memcpy(a, b, P); memcpy(b, t, P);
}

static void radix(uint8_t *base, uint64_t n, int depth) {
    if (depth >= P || n < 2) return;
    if (n < 24) {
        for (uint64_t i = 1; i < n; i++)
            for (uint64_t j = i; j > 0 && memcmp(base + (j - 1) * P + depth, base + j * P + depth, P - depth) > 0; j--)
                swap_rec(base + (j - 1) * P, base + j * P);
        return;
    }
    uint64_t count[256] = {0}, next[256], end[256];
    for (uint64_t i = 0; i < n; i++) count[base[i * P + depth]]++;
    uint64_t at = 0;
    for (int k = 0; k < 256; k++) { next[k] = at; at += count[k]; end[k] = at; }
    for (int k = 0; k < 256; k++) {
        while (next[k] < end[k]) {
            uint8_t *r = base + next[k] * P;
            int v = r[depth];
            if (v == k) { next[k]++; continue; }
            /* Send r to its bucket, bringing that slot's record here. */
            swap_rec(r, base + next[v] * P);
            next[v]++;
        }
    }
    at = 0;
    for (int k = 0; k < 256; k++) {
        if (count[k] > 1) radix(base + at * P, count[k], depth + 1);
        at += count[k];
    }
}

/* The buckets of the first byte, shared out among the threads. */
static uint64_t bucket_at[257];
static int next_bucket;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *sort_buckets(void *arg) {
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        int k = next_bucket++;
        pthread_mutex_unlock(&lock);
        if (k >= 256) return NULL;
        uint64_t n = bucket_at[k + 1] - bucket_at[k];
        /* Second byte on, sorted as a whole by one thread. */
        if (n > 1) radix(spectra + bucket_at[k] * P, n, 1);
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s ATOMS WIDTH [THREADS]\n", argv[0]);
        return 1;
    }
    ATOMS = atoi(argv[1]);
    W = atoi(argv[2]);
    if (argc > 3) THREADS = atoi(argv[3]);
    if (W < 1 || W > MAXW || ATOMS < 0 || ATOMS > W * W || THREADS < 1 || THREADS > 64) {
        fprintf(stderr, "width 1 to %d, atoms 0 to width squared, threads 1 to 64\n", MAXW);
        return 1;
    }
    P = 4 * W;
    CELLS = W * W;
    TOTAL = choose(CELLS, ATOMS);
    setup();
    spectra = malloc(TOTAL * (uint64_t)P);
    if (!spectra) { fprintf(stderr, "out of memory\n"); return 1; }

    double t0 = now();
    pthread_t th[64];
    struct span spans[64];
    for (int t = 0; t < THREADS; t++) {
        spans[t].first = TOTAL * t / THREADS;
        spans[t].last = TOTAL * (t + 1) / THREADS;
        pthread_create(&th[t], NULL, trace_span, &spans[t]);
    }
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    double t1 = now();

    /* First byte: one pass, in place; then each bucket by a thread. */
    uint64_t count[256] = {0}, next[256];
    for (uint64_t i = 0; i < TOTAL; i++) count[spectra[i * P]]++;
    bucket_at[0] = 0;
    for (int k = 0; k < 256; k++) { bucket_at[k + 1] = bucket_at[k] + count[k]; next[k] = bucket_at[k]; }
    for (int k = 0; k < 256; k++) {
        while (next[k] < bucket_at[k + 1]) {
            uint8_t *r = spectra + next[k] * P;
            int v = r[0];
            if (v == k) { next[k]++; continue; }
            swap_rec(r, spectra + next[v] * P);
            next[v]++;
        }
    }
    for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, sort_buckets, NULL);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    double t2 = now();

    /* Runs of equal spectra. */
    static uint64_t runs[1 << 16];
    uint64_t longest = 0;
    for (uint64_t i = 0; i < TOTAL;) {
        uint64_t j = i + 1;
        while (j < TOTAL && memcmp(spectra + i * P, spectra + j * P, P) == 0) j++;
        uint64_t n = j - i;
        if (n >= (1 << 16)) { fprintf(stderr, "a spectrum of %llu molecules\n", (unsigned long long)n); return 2; }
        runs[n]++;
        if (n > longest) longest = n;
        i = j;
    }
    double t3 = now();

    printf("A%d_B%d: %llu molecules\n", ATOMS, W, (unsigned long long)TOTAL);
    printf("molecules per spectrum  spectra  molecules\n");
    uint64_t spectra_shared = 0, molecules_shared = 0;
    for (uint64_t n = 2; n <= longest; n++) {
        if (!runs[n]) continue;
        printf("%llu %llu %llu\n", (unsigned long long)n, (unsigned long long)runs[n],
               (unsigned long long)(n * runs[n]));
        spectra_shared += runs[n];
        molecules_shared += n * runs[n];
    }
    printf("total %llu %llu\n", (unsigned long long)spectra_shared, (unsigned long long)molecules_shared);
    printf("unique %llu\n", (unsigned long long)runs[1]);
    fprintf(stderr, "trace %.2f s, sort %.2f s, count %.2f s, %d threads\n", t1 - t0, t2 - t1, t3 - t2, THREADS);
    free(spectra);
    return 0;
}
