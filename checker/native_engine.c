/* The compiled search loop of checker/native.py: a breadth- or depth-first search over
 * fixed-width int32 state vectors, with an exact visited-state store, that takes the steps
 * of a transition table filled in by Python (model/system.py: System.transition). It knows
 * no spec and runs no user text: every value it uses came from the table.
 *
 * A state vector is [entry id of each process (0: finished)] [every signal element]
 * [launch count of each rank, when the program keeps them]. A row of the table says what
 * process i at entry e (its rank at launch l) does, as a function of the signals; a state
 * whose step is not in the table (a row of kind K_PY, an AtomicAdd that leaves int32, a
 * joint barrier step that is enabled) goes back to Python (R_SLOW), which takes its steps
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

typedef struct {
    int32_t P, S, T, R, B, W, dfs;
    int64_t max_states;
    /* store */
    int32_t *states; int64_t n, cap;
    uint32_t *slots; int64_t nslots;
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

static int grow_slots(Engine *E) {
    int64_t ns = E->nslots ? E->nslots * 2 : 1 << 12;
    uint32_t *s = malloc((size_t)ns * sizeof(uint32_t));
    if (!s) return 0;
    memset(s, 0xff, (size_t)ns * sizeof(uint32_t));
    for (int64_t k = 0; k < E->n; k++) {
        uint64_t h = hash_words(E->states + k * E->W, E->W) & (uint64_t)(ns - 1);
        while (s[h] != 0xffffffffu) h = (h + 1) & (uint64_t)(ns - 1);
        s[h] = (uint32_t)k;
    }
    free(E->slots); E->slots = s; E->nslots = ns;
    return 1;
}

/* index of vec, or -1; *slot the free slot where it would go */
static int64_t lookup(Engine *E, const int32_t *vec, uint64_t *slot) {
    uint64_t mask = (uint64_t)(E->nslots - 1), h = hash_words(vec, E->W) & mask;
    size_t bytes = (size_t)E->W * sizeof(int32_t);
    while (E->slots[h] != 0xffffffffu) {
        uint32_t k = E->slots[h];
        if (memcmp(E->states + (int64_t)k * E->W, vec, bytes) == 0) return k;
        h = (h + 1) & mask;
    }
    *slot = h;
    return -1;
}

/* the index of vec, added if new (*isnew); -1 when out of memory */
static int64_t add(Engine *E, const int32_t *vec, int *isnew) {
    uint64_t slot;
    int64_t k = lookup(E, vec, &slot);
    *isnew = 0;
    if (k >= 0) return k;
    if (E->n >= 0xfffffffeLL) return -1;
    if (E->n == E->cap) {
        int64_t c = E->cap ? E->cap * 2 : 4096;
        int32_t *st = realloc(E->states, (size_t)c * E->W * sizeof(int32_t));
        uint8_t *d = realloc(E->done, (size_t)c);
        if (d) E->done = d;
        uint8_t *f = realloc(E->final, (size_t)c);
        if (f) E->final = f;
        if (!st || !d || !f) { if (st) E->states = st; return -1; }
        E->states = st; E->cap = c;
    }
    if ((E->n + 1) * 2 > E->nslots) {
        if (!grow_slots(E)) return -1;
        lookup(E, vec, &slot);
    }
    memcpy(E->states + E->n * E->W, vec, (size_t)E->W * sizeof(int32_t));
    E->slots[slot] = (uint32_t)E->n;
    E->done[E->n] = 0;
    E->final[E->n] = 0;
    *isnew = 1;
    return E->n++;
}

Engine *eng_new(int32_t P, int32_t S, int32_t T, int32_t R, int32_t B, int32_t dfs, int64_t max_states) {
    Engine *E = calloc(1, sizeof(Engine));
    if (!E) return NULL;
    E->P = P; E->S = S; E->T = T; E->R = R; E->B = B; E->W = P + S + T;
    E->dfs = dfs; E->max_states = max_states;
    E->cur = malloc((size_t)(E->W + 1) * sizeof(int32_t));
    E->tmp = malloc((size_t)(E->W + 1) * sizeof(int32_t));
    E->rowidx = malloc((size_t)(P + 1) * sizeof(int32_t));
    E->rankof = malloc((size_t)(P + 1) * sizeof(int32_t));
    E->nrk = 1 << 10;
    E->rk = malloc((size_t)E->nrk * sizeof(RowKey));
    if (!E->cur || !E->tmp || !E->rowidx || !E->rankof || !E->rk || !grow_slots(E)) return NULL;
    for (int64_t k = 0; k < E->nrk; k++) E->rk[k].row = -1;
    for (int32_t i = 0; i < P; i++) E->rankof[i] = i < R ? i : (i - R) / B;
    return E;
}

void eng_free(Engine *E) {
    if (!E) return;
    free(E->states); free(E->slots); free(E->rows); free(E->rk); free(E->pool); free(E->used);
    Vec *vs[] = {&E->parent, &E->label, &E->succ, &E->order, &E->count, &E->frontier, &E->mine};
    for (size_t k = 0; k < sizeof vs / sizeof vs[0]; k++) free(vs[k]->v);
    free(E->done); free(E->final); free(E->cur); free(E->tmp); free(E->rowidx); free(E->rankof);
    free(E);
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
static int64_t reach(Engine *E, int32_t s, const int32_t *vec, int32_t label, int *isnew) {
    int64_t t;
    *isnew = 0;
    if (E->max_states >= 0 && E->n >= E->max_states) {
        uint64_t slot;
        t = lookup(E, vec, &slot);
        if (t < 0) return -2;
    } else {
        t = add(E, vec, isnew);
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
    int64_t t = add(E, vec, &isnew);
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
    int64_t t = reach(E, s, vec, label, &nw);
    *isnew = nw;
    return t;
}

void eng_slow_end(Engine *E, int32_t s, int32_t nsteps, int32_t final) {
    expanded(E, s, nsteps, final);
}

void eng_state(Engine *E, int64_t index, int32_t *out) {
    memcpy(out, E->states + index * E->W, (size_t)E->W * sizeof(int32_t));
}

int64_t eng_find(Engine *E, const int32_t *vec) {
    uint64_t slot;
    return lookup(E, vec, &slot);
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
        memcpy(cur, E->states + (int64_t)s * W, bytes);
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
                break;
            }
            case K_NOTIFY:
                memcpy(tmp, cur, bytes);
                tmp[P + w->a] = w->c ? w->b : cur[P + w->a] + w->b;
                tmp[i] = w->d;
                break;
            case K_RESET:
                memcpy(tmp, cur, bytes);
                for (int32_t k = 0; k < w->b; k++) tmp[P + E->pool[w->a + k]] = w->c;
                tmp[i] = w->d;
                break;
            case K_LAUNCH:
                memcpy(tmp, cur, bytes);
                tmp[i] = w->d;
                for (int32_t b = 0; b < B; b++) tmp[R + w->f * B + b] = E->pool[w->a + b];
                if (E->T) tmp[P + S + w->f] += 1;
                break;
            case K_JOIN: {
                int busy = 0;
                for (int32_t k = w->a; k < w->b && !busy; k++) busy = cur[k] != 0;
                if (busy) continue;
                memcpy(tmp, cur, bytes);
                tmp[i] = w->d;
                break;
            }
            default:
                continue; /* spinning, or moves only in a joint barrier step */
            }
            E->used[r] = 1;
            nsteps++;
            int isnew;
            int64_t t = reach(E, s, tmp, i, &isnew);
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
    return which < 5 ? vs[which]->n : which == 5 ? E->n : which == 6 ? E->transitions : which == 7 ? E->nrows
           : E->expanded;
}

const int32_t *eng_array(Engine *E, int32_t which) {
    Vec *vs[] = {&E->parent, &E->label, &E->succ, &E->order, &E->count};
    return vs[which]->v;
}

const uint8_t *eng_final(Engine *E) { return E->final; }
const uint8_t *eng_used(Engine *E) { return E->used; }

/* bytes of the stored states and their index */
int64_t eng_store_bytes(Engine *E) {
    return E->n * E->W * (int64_t)sizeof(int32_t) + E->nslots * (int64_t)sizeof(uint32_t);
}
