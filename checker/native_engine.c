/* The compiled search loop of checker/native.py: a breadth- or depth-first search over
 * fixed-width int32 state vectors, with an exact visited-state store, that takes the steps
 * of a transition table filled in by Python (model/system.py: System.transition). It knows
 * no spec and runs no user text: every value it uses came from the table.
 *
 * A state vector is [entry id of each process (0: finished)] [every signal element]
 * [launch count of each rank, when the program keeps them] [the lost-notification mark of
 * each ghost slot (model/ghost.py), when the program has any]. A row of the table says what
 * process i at entry e (its rank at launch l) does, as a function of the signals; a state
 * whose step is not in the table (a row of kind K_PY, an AtomicAdd that leaves int32, a
 * joint barrier step that is enabled, a Set or reset that replaces a marked value: an
 * Overwrite event) goes back to Python (R_SLOW), which takes its steps
 * with the Python engine and hands the successors back through eng_slow_add / eng_slow_end.
 * Bookkeeping (predecessor, label, successor lists, order) is exactly what checker/explore.py
 * keeps, in the same order, so the two engines give the same graph state for state. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { K_SPIN = 0, K_JOINT_HOST, K_JOINT_BLOCK, K_READ, K_NOTIFY, K_RESET, K_LAUNCH, K_JOIN, K_PY };
enum { R_DONE = 0, R_NEED_ROW, R_SLOW, R_ZERO, R_BUDGET, R_MAXED, R_NOMEM };
#define BLOCKED (-1)

typedef struct { int32_t kind, a, b, c, d, f; } Row;
typedef struct { int32_t i, e, l, row; } RowKey;

typedef struct { int32_t *v; int64_t n, cap; } Vec;

/* a hash set of fixed-width int32 rows, numbered 0, 1, 2, ... in the order they were added */
typedef struct { int32_t w; int32_t *rows; int64_t n, cap; uint32_t *slots; int64_t nslots; } Table;

/* The visited states are kept compressed: the vector is cut into chunks of CHUNK words, each
 * chunk interned once in `chunks` (SPIN's COLLAPSE idea); the chunk ids are the leaves of a
 * fixed balanced binary tree whose inner nodes are pairs of ids interned once in `nodes`, and
 * a state is its root pair, row `index` of `states` (LTSmin's tree compression). A step
 * changes one to three chunks, so a successor shares most of its tree with its parent, and a
 * new state costs about one pair. Decoding walks the tree down: the vector comes back bit for
 * bit. */
#define CHUNK 8

typedef struct {
    int32_t P, S, T, G, R, B, W, WP, C, NI, dfs, EPR, GB;
    int64_t max_states;
    Table states, chunks, nodes;
    int32_t *key, *perm, *pv, *pcur;  /* the store's order: word j is vector word perm[j] (-1: a
                                         zero), WP words, a multiple of CHUNK; pv, pcur: buffers */
    int32_t *lref, *rref;  /* per inner node (post-order, the root last): its children's references */
    int32_t *leaf, *node, *cleaf, *cnode;  /* ids of the tree being keyed; of E->cur's tree */
    /* rows */
    Row *rows; int64_t nrows, caprows;
    RowKey *rk; int64_t nrk;
    int32_t *pool; int64_t npool, cappool;
    uint8_t *used;
    /* search */
    Vec parent, label, succ, order, count, frontier, mine;
    uint8_t *done, *final;
    int64_t head, transitions, expanded;
    int32_t *cur, *tmp, *rowidx, *rankof;
    int nomem;
    int quiet;  /* Overwrites are no longer judged (eng_quiet): a Set or reset over a marked value runs here */
    /* the ghost marks (G > 0): model/ghost.py's tables, over each rank's own slots */
    int32_t *slot_of, *glo, *ghi, *mayoff;  /* per position its slot (-1: none); per rank its
                                              slots lo..hi-1; per process its row in maypc */
    uint64_t *maypc, *startmay;  /* per (process, pc): the rank's slots it may still read (bit
                                    g - lo); per kernel process: the same at its first pc */
    int32_t *epc; uint8_t *elive; int64_t nent, capent;  /* per entry id: pc, and 0 if it
                                                            never reads (finished, spinning) */
} Engine;

static int vpush(Vec *a, int32_t x) {
    if (a->n == a->cap) {
        int64_t c = a->cap ? a->cap * 2 : 1024;
        int32_t *v = realloc(a->v, (size_t)c * sizeof(int32_t));
        if (!v) return 0;
        a->v = v; a->cap = c;
    }
    a->v[a->n++] = x;
    return 1;
}

static uint64_t hash_words(const int32_t *w, int n) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
    for (int k = 0; k < n; k++) {
        h ^= (uint32_t)w[k];
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    h ^= h >> 29; h *= 0xc4ceb9fe1a85ec53ULL; h ^= h >> 32;
    return h;
}

static int tab_grow_slots(Table *t) {
    int64_t ns = t->nslots ? t->nslots * 2 : 1 << 12;
    uint32_t *s = malloc((size_t)ns * sizeof(uint32_t));
    if (!s) return 0;
    memset(s, 0xff, (size_t)ns * sizeof(uint32_t));
    for (int64_t k = 0; k < t->n; k++) {
        uint64_t h = hash_words(t->rows + k * t->w, t->w) & (uint64_t)(ns - 1);
        while (s[h] != 0xffffffffu) h = (h + 1) & (uint64_t)(ns - 1);
        s[h] = (uint32_t)k;
    }
    free(t->slots); t->slots = s; t->nslots = ns;
    return 1;
}

static int tab_init(Table *t, int32_t w) {
    memset(t, 0, sizeof *t);
    t->w = w;
    return tab_grow_slots(t);
}

static void tab_free(Table *t) { free(t->rows); free(t->slots); }

/* the number of row, or -1 (*slot: the free slot where it would go) */
static int64_t tab_find(const Table *t, const int32_t *row, uint64_t *slot) {
    uint64_t mask = (uint64_t)(t->nslots - 1), h = hash_words(row, t->w) & mask;
    size_t bytes = (size_t)t->w * sizeof(int32_t);
    while (t->slots[h] != 0xffffffffu) {
        uint32_t k = t->slots[h];
        if (memcmp(t->rows + (int64_t)k * t->w, row, bytes) == 0) return k;
        h = (h + 1) & mask;
    }
    *slot = h;
    return -1;
}

/* the number of row, added if new (*isnew); -1 when out of memory */
static int64_t tab_add(Table *t, const int32_t *row, int *isnew) {
    uint64_t slot;
    int64_t k = tab_find(t, row, &slot);
    *isnew = 0;
    if (k >= 0) return k;
    if (t->n >= 0xfffffffeLL) return -1;
    if (t->n == t->cap) {
        int64_t c = t->cap ? t->cap * 2 : 4096;
        int32_t *r = realloc(t->rows, (size_t)c * t->w * sizeof(int32_t));
        if (!r) return -1;
        t->rows = r; t->cap = c;
    }
    if ((t->n + 1) * 2 > t->nslots) {
        if (!tab_grow_slots(t)) return -1;
        tab_find(t, row, &slot);
    }
    memcpy(t->rows + t->n * t->w, row, (size_t)t->w * sizeof(int32_t));
    t->slots[slot] = (uint32_t)t->n;
    *isnew = 1;
    return t->n++;
}

static int64_t intern(Table *t, const int32_t *row, int add) {
    if (add) {
        int isnew;
        return tab_add(t, row, &isnew);
    }
    uint64_t slot;
    return tab_find(t, row, &slot);
}

/* the id a tree reference stands for: an inner node's (ref >= 0) or a leaf's (-1 - chunk) */
static int32_t ref_id(const int32_t *leaf, const int32_t *node, int32_t ref) {
    return ref >= 0 ? node[ref] : leaf[-1 - ref];
}

/* the tree of vec: its leaf (chunk) and inner ids into E->leaf / E->node, its root pair into
 * E->key. add: intern what is new; else 0 if a chunk or node is unknown. cached: vec is a
 * successor of E->cur, whose ids are E->cleaf / E->cnode; the chunks and subtrees vec shares
 * with it keep their ids without a lookup. */
static int keyed(Engine *E, const int32_t *vec, int add, int cached) {
    int32_t *leaf = E->leaf, *node = E->node, *pv = E->pv;
    for (int32_t j = 0; j < E->WP; j++) pv[j] = E->perm[j] >= 0 ? vec[E->perm[j]] : 0;
    for (int32_t c = 0; c < E->C; c++) {
        const int32_t *row = pv + c * CHUNK;
        if (cached && memcmp(row, E->pcur + c * CHUNK, CHUNK * sizeof(int32_t)) == 0) {
            leaf[c] = E->cleaf[c];
            continue;
        }
        int64_t id = intern(&E->chunks, row, add);
        if (id < 0) return 0;
        leaf[c] = (int32_t)id;
    }
    for (int32_t k = 0; k + 1 < E->NI; k++) {
        int32_t pair[2] = {ref_id(leaf, node, E->lref[k]), ref_id(leaf, node, E->rref[k])};
        if (cached && pair[0] == ref_id(E->cleaf, E->cnode, E->lref[k])
            && pair[1] == ref_id(E->cleaf, E->cnode, E->rref[k])) {
            node[k] = E->cnode[k];
            continue;
        }
        int64_t id = intern(&E->nodes, pair, add);
        if (id < 0) return 0;
        node[k] = (int32_t)id;
    }
    E->key[0] = ref_id(leaf, node, E->lref[E->NI - 1]);
    E->key[1] = ref_id(leaf, node, E->rref[E->NI - 1]);
    return 1;
}

/* the index of state vec, or -1 */
static int64_t lookup(Engine *E, const int32_t *vec) {
    uint64_t slot;
    return keyed(E, vec, 0, 0) ? tab_find(&E->states, E->key, &slot) : -1;
}

/* the index of state vec, added if new (*isnew); -1 when out of memory */
static int64_t add(Engine *E, const int32_t *vec, int *isnew, int cached) {
    *isnew = 0;
    if (!keyed(E, vec, 1, cached)) return -1;
    int64_t n = E->states.n, k = tab_add(&E->states, E->key, isnew);
    if (k < 0 || !*isnew) return k;
    if ((n & (n - 1)) == 0 || n < 2) {  /* done and final grow at powers of two */
        int64_t c = n < 2 ? 2 : 2 * n;
        uint8_t *d = realloc(E->done, (size_t)c);
        if (d) E->done = d;
        uint8_t *f = realloc(E->final, (size_t)c);
        if (f) E->final = f;
        if (!d || !f) return -1;
    }
    E->done[k] = 0;
    E->final[k] = 0;
    return k;
}

/* the vector of state `index` into out (in the store's order into pv), its leaf and inner ids
 * into leaf / node */
static void decode(const Engine *E, int64_t index, int32_t *out, int32_t *pv, int32_t *leaf, int32_t *node) {
    for (int32_t k = E->NI - 1; k >= 0; k--) {  /* parents before children (post-order, reversed) */
        const int32_t *pair = k == E->NI - 1 ? E->states.rows + index * 2 : E->nodes.rows + (int64_t)node[k] * 2;
        int32_t refs[2] = {E->lref[k], E->rref[k]};
        for (int h = 0; h < 2; h++) {
            if (refs[h] >= 0) node[refs[h]] = pair[h];
            else leaf[-1 - refs[h]] = pair[h];
        }
    }
    for (int32_t c = 0; c < E->C; c++)
        memcpy(pv + c * CHUNK, E->chunks.rows + (int64_t)leaf[c] * CHUNK, CHUNK * sizeof(int32_t));
    for (int32_t j = 0; j < E->WP; j++)
        if (E->perm[j] >= 0) out[E->perm[j]] = pv[j];
}

/* the tree over chunks lo..hi-1: inner nodes numbered in post-order; the reference of its top */
static int32_t build(Engine *E, int32_t lo, int32_t hi, int32_t *next) {
    if (hi - lo == 1) return -1 - lo;
    int32_t mid = lo + (hi - lo) / 2;
    int32_t l = build(E, lo, mid, next), r = build(E, mid, hi, next);
    E->lref[*next] = l; E->rref[*next] = r;
    return (*next)++;
}

Engine *eng_new(int32_t P, int32_t S, int32_t T, int32_t G, int32_t R, int32_t B, int32_t dfs, int64_t max_states,
                const int32_t *perm, int32_t wp) {
    Engine *E = calloc(1, sizeof(Engine));
    if (!E) return NULL;
    E->P = P; E->S = S; E->T = T; E->G = G; E->R = R; E->B = B; E->W = P + S + T + G;
    E->GB = P + S + T; E->EPR = R > 0 ? S / R : 0;
    E->WP = wp; E->C = wp / CHUNK;
    E->NI = E->C > 1 ? E->C - 1 : 1;
    E->key = malloc(2 * sizeof(int32_t));
    E->perm = malloc((size_t)wp * sizeof(int32_t));
    E->pv = malloc((size_t)wp * sizeof(int32_t));
    E->pcur = malloc((size_t)wp * sizeof(int32_t));
    if (!E->perm || !E->pv || !E->pcur || wp % CHUNK || wp < CHUNK) return NULL;
    memcpy(E->perm, perm, (size_t)wp * sizeof(int32_t));
    E->lref = malloc((size_t)E->NI * sizeof(int32_t));
    E->rref = malloc((size_t)E->NI * sizeof(int32_t));
    E->leaf = malloc((size_t)E->C * sizeof(int32_t));
    E->cleaf = malloc((size_t)E->C * sizeof(int32_t));
    E->node = malloc((size_t)E->NI * sizeof(int32_t));
    E->cnode = malloc((size_t)E->NI * sizeof(int32_t));
    if (!E->key || !E->lref || !E->rref || !E->leaf || !E->cleaf || !E->node || !E->cnode
        || !tab_init(&E->states, 2) || !tab_init(&E->chunks, CHUNK) || !tab_init(&E->nodes, 2)) return NULL;
    if (E->C > 1) {
        int32_t next = 0;
        build(E, 0, E->C, &next);
    } else {  /* one chunk: the root pairs it with itself */
        E->lref[0] = E->rref[0] = -1;
    }
    E->dfs = dfs; E->max_states = max_states;
    E->cur = malloc((size_t)(E->W + 1) * sizeof(int32_t));
    E->tmp = malloc((size_t)(E->W + 1) * sizeof(int32_t));
    E->rowidx = malloc((size_t)(P + 1) * sizeof(int32_t));
    E->rankof = malloc((size_t)(P + 1) * sizeof(int32_t));
    E->nrk = 1 << 10;
    E->rk = malloc((size_t)E->nrk * sizeof(RowKey));
    if (!E->cur || !E->tmp || !E->rowidx || !E->rankof || !E->rk) return NULL;
    for (int64_t k = 0; k < E->nrk; k++) E->rk[k].row = -1;
    for (int32_t i = 0; i < P; i++) E->rankof[i] = i < R ? i : (i - R) / B;
    return E;
}

void eng_free(Engine *E) {
    if (!E) return;
    tab_free(&E->states); tab_free(&E->chunks); tab_free(&E->nodes); free(E->key); free(E->perm); free(E->pv); free(E->pcur);
    free(E->lref); free(E->rref); free(E->leaf); free(E->node); free(E->cleaf); free(E->cnode); free(E->rows); free(E->rk); free(E->pool); free(E->used);
    Vec *vs[] = {&E->parent, &E->label, &E->succ, &E->order, &E->count, &E->frontier, &E->mine};
    for (size_t k = 0; k < sizeof vs / sizeof vs[0]; k++) free(vs[k]->v);
    free(E->done); free(E->final); free(E->cur); free(E->tmp); free(E->rowidx); free(E->rankof);
    free(E->slot_of); free(E->glo); free(E->ghi); free(E->mayoff); free(E->maypc); free(E->startmay);
    free(E->epc); free(E->elive);
    free(E);
}

/* the ghost tables (G > 0): slot_of[S], glo[R], ghi[R], mayoff[P], maypc[nmay], startmay[P] */
int32_t eng_marks(Engine *E, const int32_t *slot_of, const int32_t *glo, const int32_t *ghi, const int32_t *mayoff,
                  const uint64_t *maypc, int64_t nmay, const uint64_t *startmay) {
    E->slot_of = malloc((size_t)(E->S + 1) * sizeof(int32_t));
    E->glo = malloc((size_t)(E->R + 1) * sizeof(int32_t));
    E->ghi = malloc((size_t)(E->R + 1) * sizeof(int32_t));
    E->mayoff = malloc((size_t)(E->P + 1) * sizeof(int32_t));
    E->maypc = malloc((size_t)(nmay + 1) * sizeof(uint64_t));
    E->startmay = malloc((size_t)(E->P + 1) * sizeof(uint64_t));
    if (!E->slot_of || !E->glo || !E->ghi || !E->mayoff || !E->maypc || !E->startmay) return -1;
    memcpy(E->slot_of, slot_of, (size_t)E->S * sizeof(int32_t));
    memcpy(E->glo, glo, (size_t)E->R * sizeof(int32_t));
    memcpy(E->ghi, ghi, (size_t)E->R * sizeof(int32_t));
    memcpy(E->mayoff, mayoff, (size_t)E->P * sizeof(int32_t));
    memcpy(E->maypc, maypc, (size_t)nmay * sizeof(uint64_t));
    memcpy(E->startmay, startmay, (size_t)E->P * sizeof(uint64_t));
    return 0;
}

/* entry ids nent .. nent+n-1: their pc, and whether they may still read (not finished or spinning) */
int32_t eng_entries(Engine *E, int32_t n, const int32_t *pc, const int32_t *live) {
    if (E->nent + n > E->capent) {
        int64_t c = E->capent ? E->capent : 256;
        while (c < E->nent + n) c *= 2;
        int32_t *p = realloc(E->epc, (size_t)c * sizeof(int32_t));
        if (p) E->epc = p;
        uint8_t *l = realloc(E->elive, (size_t)c);
        if (l) E->elive = l;
        if (!p || !l) return -1;
        E->capent = c;
    }
    for (int32_t k = 0; k < n; k++) { E->epc[E->nent + k] = pc[k]; E->elive[E->nent + k] = (uint8_t)(live[k] != 0); }
    E->nent += n;
    return 0;
}

/* the rank's ghost slots process k (at entry id e) may still read: model/ghost.py's _may */
static uint64_t may(const Engine *E, int32_t k, int32_t e) {
    return e > 0 && E->elive[e] ? E->maypc[E->mayoff[k] + E->epc[e]] : 0;
}

/* process k's reader bit in a mark: 1 for a host, 1 << (1 + b) for block b */
static uint32_t reader_bit(const Engine *E, int32_t k) {
    return k < E->R ? 1u : 1u << (1 + (k - E->R) % E->B);
}

/* settle: process k (now at v[k]) drops its bit from the slots of its rank it can no longer read */
static void settle(const Engine *E, int32_t *v, int32_t k) {
    int32_t r = E->rankof[k], lo = E->glo[r], hi = E->ghi[r];
    uint64_t m = may(E, k, v[k]);
    uint32_t bit = reader_bit(E, k);
    for (int32_t g = lo; g < hi; g++)
        if (!((m >> (g - lo)) & 1)) v[E->GB + g] = (int32_t)((uint32_t)v[E->GB + g] & ~bit);
}

/* the readers on the rank of slot g that a notification by process i (states after the step: v)
 * is for: model/ghost.py's _tokens */
static uint32_t tokens(const Engine *E, const int32_t *v, int32_t i, int32_t g, int32_t pos) {
    const int32_t R = E->R, B = E->B, L = E->P + E->S;
    int32_t r = pos / E->EPR, j = g - E->glo[r];
    int32_t writer = i < R ? v[L + i] : v[L + E->rankof[i]] - 1;
    int32_t off = writer - (v[L + r] - 1);
    uint32_t t = (uint32_t)((may(E, r, v[r]) >> j) & 1);
    for (int32_t b = 0; b < B; b++) {
        int32_t k = R + r * B + b;
        if (off == 0 && ((may(E, k, v[k]) >> j) & 1)) t |= 1u << (1 + b);
        else if (off > 0 && ((E->startmay[k] >> j) & 1)) t |= 1u << (1 + off * B + b);
    }
    return t;
}

static uint64_t rkhash(int32_t i, int32_t e, int32_t l) {
    int32_t w[3] = {i, e, l};
    return hash_words(w, 3);
}

static int64_t find_row(Engine *E, int32_t i, int32_t e, int32_t l) {
    uint64_t mask = (uint64_t)(E->nrk - 1), h = rkhash(i, e, l) & mask;
    while (E->rk[h].row >= 0) {
        RowKey *k = &E->rk[h];
        if (k->i == i && k->e == e && k->l == l) return k->row;
        h = (h + 1) & mask;
    }
    return -1;
}

static void put_key(RowKey *tab, int64_t n, RowKey key) {
    uint64_t mask = (uint64_t)(n - 1), h = rkhash(key.i, key.e, key.l) & mask;
    while (tab[h].row >= 0) h = (h + 1) & mask;
    tab[h] = key;
}

/* the row of process i at entry e (launch l): kind, a, b, c, d, f; `extra` entries go to the pool
 * (reset positions, launch start entries) and a is set to their offset. Returns the row index or -1. */
int64_t eng_add_row(Engine *E, int32_t i, int32_t e, int32_t l, const int32_t *row, const int32_t *extra,
                    int32_t nextra) {
    if ((E->nrows + 1) * 2 > E->nrk) {
        int64_t n = E->nrk * 2;
        RowKey *t = malloc((size_t)n * sizeof(RowKey));
        if (!t) return -1;
        for (int64_t k = 0; k < n; k++) t[k].row = -1;
        for (int64_t k = 0; k < E->nrk; k++)
            if (E->rk[k].row >= 0) put_key(t, n, E->rk[k]);
        free(E->rk); E->rk = t; E->nrk = n;
    }
    if (E->nrows == E->caprows) {
        int64_t c = E->caprows ? E->caprows * 2 : 256;
        Row *r = realloc(E->rows, (size_t)c * sizeof(Row));
        uint8_t *u = realloc(E->used, (size_t)c);
        if (u) E->used = u;
        if (!r || !u) { if (r) E->rows = r; return -1; }
        E->rows = r; E->caprows = c;
    }
    if (E->npool + nextra > E->cappool) {
        int64_t c = E->cappool ? E->cappool : 256;
        while (c < E->npool + nextra) c *= 2;
        int32_t *p = realloc(E->pool, (size_t)c * sizeof(int32_t));
        if (!p) return -1;
        E->pool = p; E->cappool = c;
    }
    Row r = {row[0], row[1], row[2], row[3], row[4], row[5]};
    if (nextra > 0) {
        memcpy(E->pool + E->npool, extra, (size_t)nextra * sizeof(int32_t));
        r.a = (int32_t)E->npool;
        E->npool += nextra;
    }
    E->rows[E->nrows] = r;
    E->used[E->nrows] = 0;
    RowKey key = {i, e, l, (int32_t)E->nrows};
    put_key(E->rk, E->nrk, key);
    return E->nrows++;
}

static int holds(int32_t v, int32_t x, int32_t cmp) {
    switch (cmp) { /* pto-isa's WaitCmp order (model/vocabulary.py) */
    case 0: return v == x;
    case 1: return v != x;
    case 2: return v > x;
    case 3: return v >= x;
    case 4: return v < x;
    default: return v <= x;
    }
}

/* a new state found from s by the step `label`: stored, linked and queued, or found again */
static int64_t reach(Engine *E, int32_t s, const int32_t *vec, int32_t label, int *isnew, int cached) {
    int64_t t;
    *isnew = 0;
    if (E->max_states >= 0 && E->states.n >= E->max_states) {
        t = lookup(E, vec);
        if (t < 0) return -2;
    } else {
        t = add(E, vec, isnew, cached);
        if (t < 0) { E->nomem = 1; return -1; }
        if (*isnew && !(vpush(&E->parent, s) && vpush(&E->label, label) && vpush(&E->frontier, (int32_t)t))) {
            E->nomem = 1;
            return -1;
        }
    }
    E->transitions++;
    if (t != s) {
        int64_t k;
        for (k = 0; k < E->mine.n && E->mine.v[k] != t; k++) {}
        if (k == E->mine.n && !vpush(&E->mine, (int32_t)t)) { E->nomem = 1; return -1; }
    }
    return t;
}

/* the initial state: index 0 */
int64_t eng_initial(Engine *E, const int32_t *vec) {
    int isnew;
    int64_t t = add(E, vec, &isnew, 0);
    if (t < 0 || !vpush(&E->parent, -1) || !vpush(&E->label, 0) || !vpush(&E->frontier, 0)) return -1;
    return t;
}

static void expanded(Engine *E, int32_t s, int nsteps, int final) {
    for (int64_t k = 0; k < E->mine.n; k++)
        if (!vpush(&E->succ, E->mine.v[k])) E->nomem = 1;
    E->done[s] = 1;
    E->final[s] = (uint8_t)(nsteps == 0 && final);
    if (!vpush(&E->order, s) || !vpush(&E->count, (int32_t)E->mine.n)) E->nomem = 1;
}

/* a successor of the state s that Python expanded (R_SLOW): its index, -2 past max_states */
int64_t eng_slow_add(Engine *E, int32_t s, const int32_t *vec, int32_t label, int32_t *isnew) {
    int nw;
    int64_t t = reach(E, s, vec, label, &nw, 0);
    *isnew = nw;
    return t;
}

void eng_slow_end(Engine *E, int32_t s, int32_t nsteps, int32_t final) {
    expanded(E, s, nsteps, final);
}

void eng_state(Engine *E, int64_t index, int32_t *out) {
    decode(E, index, out, E->pv, E->leaf, E->node);
}

int64_t eng_find(Engine *E, const int32_t *vec) {
    return lookup(E, vec);
}

/* Expand states until the frontier is empty (R_DONE) or something needs Python: info[0..2] =
 * (i, e, l) of a missing row (R_NEED_ROW, the state stays queued), info[0] = the state to
 * expand in Python (R_SLOW) or the state expanded with no step (R_ZERO, info[1] = final);
 * R_BUDGET after `budget` expansions, R_MAXED at max_states (mid-expansion, as explore.py),
 * R_NOMEM out of memory. */
int32_t eng_run(Engine *E, int64_t budget, int64_t *info) {
    const int32_t P = E->P, S = E->S, R = E->R, B = E->B, W = E->W;
    const size_t bytes = (size_t)W * sizeof(int32_t);
    int32_t *cur = E->cur, *tmp = E->tmp, *rowidx = E->rowidx;
    for (;;) {
        if (E->nomem) return R_NOMEM;
        if (E->head >= E->frontier.n) return R_DONE;
        if (budget-- <= 0) return R_BUDGET;
        int32_t s = E->dfs ? E->frontier.v[E->frontier.n - 1] : E->frontier.v[E->head];
        decode(E, s, cur, E->pcur, E->cleaf, E->cnode);
        int slow = 0, final = 1;
        for (int32_t i = 0; i < P; i++) {
            int32_t e = cur[i];
            if (e == 0) { rowidx[i] = -1; continue; }
            final = 0;
            int32_t l = E->T ? cur[P + S + E->rankof[i]] : 0;
            int64_t r = find_row(E, i, e, l);
            if (r < 0) { info[0] = i; info[1] = e; info[2] = l; return R_NEED_ROW; }
            rowidx[i] = (int32_t)r;
            const Row *w = &E->rows[r];
            if (w->kind == K_PY) slow = 1;
            else if (w->kind == K_NOTIFY && !w->c) {
                int64_t nv = (int64_t)cur[P + w->a] + w->b;
                if (nv < INT32_MIN || nv > INT32_MAX) slow = 1;  /* the overflow fault: Python's */
            } else if (E->G && !E->quiet && w->kind == K_NOTIFY) {  /* a Set over a marked value: an Overwrite */
                int32_t g = E->slot_of[w->a];
                if (g >= 0 && cur[P + w->a] != w->b && cur[E->GB + g] != 0) slow = 1;
            } else if (E->G && !E->quiet && w->kind == K_RESET) {  /* likewise a reset */
                for (int32_t k = 0; k < w->b && !slow; k++) {
                    int32_t pos = E->pool[w->a + k], g = E->slot_of[pos];
                    if (g >= 0 && cur[P + pos] != w->c && cur[E->GB + g] != 0) slow = 1;
                }
            }
        }
        if (!slow && R > 0) { /* every host at a host barrier: the joint step is Python's */
            int all = 1;
            for (int32_t i = 0; i < R && all; i++)
                all = rowidx[i] >= 0 && E->rows[rowidx[i]].kind == K_JOINT_HOST;
            slow = all;
        }
        if (!slow) { /* every block of a rank at a block barrier: likewise */
            for (int32_t r = 0; r < R && !slow; r++) {
                int all = 1;
                for (int32_t k = R + r * B; k < R + (r + 1) * B && all; k++)
                    all = rowidx[k] >= 0 && E->rows[rowidx[k]].kind == K_JOINT_BLOCK;
                slow = all;
            }
        }
        if (E->dfs) E->frontier.n--; else E->head++;
        E->expanded++;
        E->mine.n = 0;
        if (slow) { info[0] = s; return R_SLOW; }
        int nsteps = 0;
        for (int32_t i = 0; i < P; i++) {
            int32_t r = rowidx[i];
            if (r < 0) continue;
            const Row *w = &E->rows[r];
            switch (w->kind) {
            case K_READ: {
                int32_t nxt = holds(cur[P + w->a], w->b, w->c) ? w->d : w->f;
                if (nxt == BLOCKED) continue;
                memcpy(tmp, cur, bytes);
                tmp[i] = nxt;
                if (E->G) {  /* the read: i has seen the notification in its own rank's slot */
                    int32_t g = E->slot_of[w->a];
                    if (g >= 0 && w->a / E->EPR == E->rankof[i])
                        tmp[E->GB + g] = (int32_t)((uint32_t)tmp[E->GB + g] & ~reader_bit(E, i));
                    settle(E, tmp, i);
                }
                break;
            }
            case K_NOTIFY:
                memcpy(tmp, cur, bytes);
                tmp[P + w->a] = w->c ? w->b : cur[P + w->a] + w->b;
                tmp[i] = w->d;
                if (E->G) {  /* the readers it is for join the slot's mark; a Set of another value
                              * replaces it (ghost.py's notified; an Overwrite when quiet, see above) */
                    int32_t g = E->slot_of[w->a];
                    if (g >= 0) {
                        uint32_t t = tokens(E, tmp, i, g, w->a);
                        tmp[E->GB + g] = (int32_t)(w->c && cur[P + w->a] != w->b ? t : ((uint32_t)tmp[E->GB + g] | t));
                    }
                    settle(E, tmp, i);
                }
                break;
            case K_RESET:
                memcpy(tmp, cur, bytes);
                for (int32_t k = 0; k < w->b; k++) {
                    int32_t pos = E->pool[w->a + k];
                    tmp[P + pos] = w->c;
                    if (E->G && cur[P + pos] != w->c && E->slot_of[pos] >= 0)  /* ghost.py's erase */
                        tmp[E->GB + E->slot_of[pos]] = 0;
                }
                tmp[i] = w->d;
                if (E->G) settle(E, tmp, i);
                break;
            case K_LAUNCH:
                memcpy(tmp, cur, bytes);
                tmp[i] = w->d;
                for (int32_t b = 0; b < B; b++) tmp[R + w->f * B + b] = E->pool[w->a + b];
                if (E->T) tmp[P + S + w->f] += 1;
                if (E->G) {  /* the marks for the launch now running: model/ghost.py's launched */
                    for (int32_t g = E->glo[w->f]; g < E->ghi[w->f]; g++) {
                        uint32_t m = (uint32_t)tmp[E->GB + g];
                        tmp[E->GB + g] = (int32_t)((m & 1u) | ((m >> (1 + B)) << 1));
                    }
                    for (int32_t b = 0; b < B; b++) settle(E, tmp, R + w->f * B + b);
                }
                break;
            case K_JOIN: {
                int busy = 0;
                for (int32_t k = w->a; k < w->b && !busy; k++) busy = cur[k] != 0;
                if (busy) continue;
                memcpy(tmp, cur, bytes);
                tmp[i] = w->d;
                if (E->G) settle(E, tmp, i);
                break;
            }
            default:
                continue; /* spinning, or moves only in a joint barrier step */
            }
            E->used[r] = 1;
            nsteps++;
            int isnew;
            int64_t t = reach(E, s, tmp, i, &isnew, 1);
            if (t == -2) return R_MAXED;
            if (t < 0) return R_NOMEM;
        }
        expanded(E, s, nsteps, final);
        if (nsteps == 0) { info[0] = s; info[1] = final; return R_ZERO; }
    }
}

/* sizes and arrays for the Exploration: which = 0 parent, 1 label, 2 succ, 3 order, 4 count */
int64_t eng_len(Engine *E, int32_t which) {
    Vec *vs[] = {&E->parent, &E->label, &E->succ, &E->order, &E->count};
    return which < 5 ? vs[which]->n : which == 5 ? E->states.n : which == 6 ? E->transitions : which == 7 ? E->nrows
           : E->expanded;
}

const int32_t *eng_array(Engine *E, int32_t which) {
    Vec *vs[] = {&E->parent, &E->label, &E->succ, &E->order, &E->count};
    return vs[which]->v;
}

const uint8_t *eng_final(Engine *E) { return E->final; }

/* the search is over and its arrays copied out: free them (the store stays) */
/* the judge no longer reads Overwrite events (lost_notification already found): a Set or reset
 * over a marked value is taken here from now on, its marks as ghost.py's notified and erase */
void eng_quiet(Engine *E) {
    E->quiet = 1;
}

void eng_release(Engine *E) {
    Vec *vs[] = {&E->parent, &E->label, &E->succ, &E->order, &E->count, &E->frontier, &E->mine};
    for (size_t k = 0; k < sizeof vs / sizeof vs[0]; k++) { free(vs[k]->v); vs[k]->v = NULL; vs[k]->n = vs[k]->cap = 0; }
    free(E->done); free(E->final); E->done = E->final = NULL;
}
const uint8_t *eng_used(Engine *E) { return E->used; }

/* bytes of the stored states: their root pairs, the chunks, the inner nodes, and the index slots of all three */
int64_t eng_store_bytes(Engine *E) {
    const Table *t[] = {&E->states, &E->chunks, &E->nodes};
    int64_t b = 0;
    for (int k = 0; k < 3; k++) b += (t[k]->n * t[k]->w + t[k]->nslots) * (int64_t)sizeof(int32_t);
    return b;
}
