/* toklane._bpe: ranked byte-level BPE behind a hand-compiled pre-tokeniser (the compiled half of
 * toklane.tokenizer.compiled, which holds the contract and chooses where it applies).
 *
 * build(ranks, classes, grammar) -> encoder (a capsule)
 *   ranks: dict bytes -> id (tiktoken's ranks: the merge of lowest id wins; ids are ranks);
 *   classes: one byte per code point (0x110000 bytes) of C_* flags below, from the reference
 *   tokenizer's own regex engine; grammar: which pre-tokeniser (G_DEEPSEEK_V4, G_QWEN3_5, G_QWEN2, G_LLAMA3, G_O200K,
 *   G_TEKKEN, G_SENTENCEPIECE; G_O200K and G_TEKKEN read a cased class table).
 * encode(encoder, text, mode) -> list of ids (AS_LIST), their number (AS_COUNT) or bytes of native
 *   uint32 ids (AS_ARRAY, for join_ids: a long text's parts encoded on threads, one list); None when the
 *   text holds a code point flagged C_DECLINE (lone surrogates), one no alternative matches, or a
 *   byte no rank holds: the caller then encodes it with the regex engine, which is the reference.
 * build_packed(payload, classes, grammar) -> encoder, over a packed ranks payload (image_cache's).
 * decode(encoder, ids) -> the ids' bytes joined (None where one is not a rank).
 * irregular(encoder, left=None) -> the ranks of tokens rank BPE (or merge rules) does not build.
 * packed_check(payload) -> what a ranks payload holds (layout, dense ranks, single bytes, lowest).
 * pack_ranks(ranks) -> a ranks dict as such a payload (toklane.tokenizer.image_cache.ranks_payload).
 * join_ids(encoder, arrays) -> one list of the ids in arrays, in order.
 * flagged(flags, texts, longest) -> which texts of a batch are long or hold a character flags marks.
 * front(encoder, owner, method, leads, split_leads, max_length, flags, ordinary=None, full=None,
 *   stable=None, short_max=0, repeat_max=0) -> a callable that runs Tokenizer.encode's common call (a short str)
 *   straight on the encoder, or on fastokens' binding, the rest through the method (see there).
 * replay(vocab, merges) -> a byte-level BPE model's merges as ranks (toklane.tokenizer.deepseek_v4).
 * sp_tune(encoder, priorities, rules=None) -> a G_SENTENCEPIECE encoder made a SentencePiece-style BPE
 *   model's: a .model file's merges by score, or a tokenizer.json's merge rules (see there).
 * encoder_image(encoder) -> its tables as bytes; build_mapped(image, classes, grammar) -> an encoder
 *   over such an image read in place (a memory map shared by processes), None where it is unsound.
 * nfc_spans(flags, text, quick=False) -> the spans of text NFC may change (see there).
 * flag_scan(flags, prefixes, text) -> the positions the quicktok engines check (toklane.tokenizer
 *   .quickranks.CheckedEngine: characters quicktok may read differently, irregular tokens' starts).
 *
 * Pre-tokens follow the grammar exactly (leftmost-first alternation, greedy quantifiers with the
 * regex's backtracking worked out by hand, see ds_piece and llama_piece). Each pre-token is one id
 * when its bytes are a token; otherwise its bytes are merged pair by pair, lowest rank first and
 * leftmost on ties (tiktoken's order): in place for short pieces, with a heap for long ones (n log n,
 * where the array scan would be quadratic on a megabyte-long run of emoji). A piece's ids are kept
 * across calls (Kept for merged pieces, Hot for one-token ones: direct-mapped tables a call holds alone,
 * so threads never share one being written): a server's texts repeat their words and markup, and a kept
 * piece costs a look-up in a small table, not its merges or a probe of the rank table. A piece not
 * kept is asked of a Bloom filter of the tokens (a byte per token) before the rank table (4-8 MB: each
 * probe a miss of the caches), whose tokens of up to 8 bytes are their own keys (no read of their
 * bytes elsewhere): most pairs a merge asks about are no token. The text is
 * read in place (str is immutable and the caller holds it) with the GIL released: encoders run on all
 * cores. Result lists share one int object per rank, made on its first use (_ids.h, as toklane._gather's
 * id lists): making an int per id took 40% of the time, with the GIL held, so threads barely helped.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#if !defined(__STDC_NO_ATOMICS__) && !(defined(_MSC_VER) && !defined(__clang__))
#include <stdatomic.h>
#define HAVE_ATOMICS 1 /* (without C11 atomics no piece is kept across calls: see KeptTable) */
#else
#define HAVE_ATOMICS 0
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "_ids.h"

#define C_L 1
#define C_M 2
#define C_N 4
#define C_P 8
#define C_S 16
#define C_WS 32
#define C_CJK 64
#define C_DECLINE 128
#define N_CODEPOINTS 0x110000

#define G_DEEPSEEK_V4 1
#define G_QWEN3_5 2
#define G_QWEN2 3
#define G_LLAMA3 4
#define G_O200K 5
#define G_TEKKEN 6
#define G_SENTENCEPIECE 7 /* SentencePiece BPE: see sp_tune */

#define NO_RANK UINT32_MAX
#define SHORT_PIECE 128 /* bytes: merged in place below this, with a heap from it on */
#define RELEASE_GIL_FROM 256 /* characters */

/* A token in the rank table. key: a token of at most 8 bytes is its bytes as tail_word reads them, so a
 * probe compares it without reading the blob (a second cache miss, on the merges' every pair); a longer
 * one is the high half of its hash << 32 | its start in blob. */
typedef struct {
    uint64_t key;
    uint32_t rank;
    uint32_t size; /* 0: empty slot */
} Slot;
#define INLINE_KEY 8 /* bytes: a token this short is its own key */

/* A piece's ids kept across calls (a chat server encodes the same words and markup over and over):
 * its ids then its bytes in data. hash 0: an empty slot (a piece whose hash is 0 is never kept); n_ids
 * with KEPT_COUNTED: kept by a count, which knows how many ids, not which (the ids' room is left as it
 * was; a list call reads it as a miss). A slot is KEPT_BYTES (two cache lines), or WIDE_BYTES in the
 * wide table, which keeps what does not fit there: a CJK or Indic word of many ids (one Japanese run
 * of ~20 characters, ~1 in 600 pieces of the benchmark's non-ASCII chat strings, took ~9% of their
 * encode, merged on every call). */
typedef struct {
    uint64_t hash;
    uint16_t size, n_ids;
    uint32_t data[];
} Kept;
#define KEPT_BYTES 128
#define KEPT_DATA (KEPT_BYTES - offsetof(Kept, data))
#define WIDE_BYTES 512
#define WIDE_DATA (WIDE_BYTES - offsetof(Kept, data))
#define WIDE_SLOTS 1024
#define KEPT_COUNTED 0x8000

/* A direct-mapped table of pieces' ids, one call at a time: a call takes a free one (busy, atomically)
 * or goes without, so encoders on other threads (without the GIL) never share a slot being written.
 * 2 MB each (and 512 KB of wide slots, 256 KB of Hot slots), allocated zeroed on first use (pages are
 * touched as pieces are kept): 16K slots keep ~10% more of a code text's pieces than 8K did, for ~10%
 * more speed there. */
#define KEPT_SLOTS 16384
#define KEPT_TABLES 2
/* A piece that is one token, kept beside the merged ones (32 bytes: its bytes inline, so a hit reads one
 * line of a 256 KB table where the rank table's probe reads one of 4-8 MB and then the token's bytes):
 * +8-18% on chat strings and multilingual text, ~+10% on code. */
#define HOT_SLOTS 8192
#define HOT_BYTES 19
typedef struct {
    uint64_t hash; /* 0: empty */
    uint32_t rank;
    uint8_t size, bytes[HOT_BYTES];
} Hot;

typedef struct {
#if HAVE_ATOMICS
    atomic_flag busy;
#endif
    uint8_t *slots, *wide; /* KEPT_SLOTS of KEPT_BYTES, WIDE_SLOTS of WIDE_BYTES */
    Hot *hot;
} KeptTable;

/* The slot of hash h in a direct-mapped table of count slots (a power of two) of size bytes each */
static inline Kept *
kept_slot(uint8_t *table, uint64_t h, size_t count, size_t size)
{
    return (Kept *)(table + (h & (count - 1)) * size);
}

/* A kept table no other call holds, now held by this one (allocated on its first use), or NULL. */
static KeptTable *
kept_take(KeptTable *tables)
{
#if HAVE_ATOMICS
    for (int k = 0; k < KEPT_TABLES; k++)
        if (!atomic_flag_test_and_set_explicit(&tables[k].busy, memory_order_acquire)) {
            KeptTable *t = &tables[k];
            if (t->slots == NULL && ((t->slots = calloc(KEPT_SLOTS, KEPT_BYTES)) == NULL ||
                                     (t->wide = calloc(WIDE_SLOTS, WIDE_BYTES)) == NULL ||
                                     (t->hot = calloc(HOT_SLOTS, sizeof(Hot))) == NULL)) {
                free(t->slots);
                free(t->wide);
                t->slots = t->wide = NULL;
                atomic_flag_clear_explicit(&tables[k].busy, memory_order_release);
                return NULL;
            }
            return &tables[k];
        }
#endif
    (void)tables;
    return NULL;
}

static void
kept_release(KeptTable *table)
{
#if HAVE_ATOMICS
    if (table != NULL)
        atomic_flag_clear_explicit(&table->busy, memory_order_release);
#endif
    (void)table;
}

typedef struct {
    Slot *slots;
    uint64_t mask;
    uint8_t *blob;
    uint32_t byte_rank[256];
    uint8_t *classes;
    int grammar;
    uint64_t *by_rank; /* (start << 32 | size) of each rank's bytes in blob, size 0 where none: decode */
    uint32_t n_ranks;  /* by_rank's length: the largest rank + 1 */
    Py_buffer image;   /* where slots, blob and by_rank lie in an encoder image (image.obj NULL: owned) */
    IdInts ids; /* the int object of each rank, made on its first use: result lists share them */
    KeptTable *kept; /* KEPT_TABLES of them (a pointer: encoding takes a const Encoder) */
    uint32_t *prio; /* G_SENTENCEPIECE (sp_tune): each rank's merge priority, SP_NOT_WHOLE flagged; NULL: the rank */
    /* sp_tune with merge rules: rank r's rules are splits[split_at[r]:split_at[r + 1]], each (the byte length
     * of its left part << 32 | its priority); a pair that is no rule of its piece does not merge. NULL: any
     * split of a piece merges, by the piece's priority. */
    uint32_t *split_at;
    uint64_t *splits;
    uint32_t *pair2; /* the rank of each two-byte piece (b0 << 8 | b1; NO_RANK: none): a merge's first pairs */
    uint32_t *starts; /* while it is built: each slot's token's start in blob (a short key holds none) */
    uint64_t *bloom;  /* the tokens of 2 bytes or more: a blocked Bloom filter (bloom_may), bloom_blocks of 8 words */
    uint64_t bloom_blocks;
} Encoder;

/* A SentencePiece piece whose characters do not merge to it (a word of its bytes is encoded by merges). */
#define SP_NOT_WHOLE 0x80000000u

static inline uint32_t
load32(const uint8_t *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

static inline uint64_t
load64(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* The last (up to) 8 bytes of p[0:n] (n >= 1) as one word, read only inside p[0:n]: overlapping loads
 * where n < 8, the last 8 bytes otherwise (a byte-by-byte memcpy of a variable size was an eighth of a
 * short text's encode). With n, it gives the bytes it covers. */
static inline uint64_t
tail_word(const uint8_t *p, size_t n)
{
    if (n >= 8)
        return load64(p + n - 8);
    if (n >= 4)
        return load32(p) | (uint64_t)load32(p + n - 4) << 32;
    return p[0] | (uint64_t)p[n / 2] << 8 | (uint64_t)p[n - 1] << 16;
}

static inline uint64_t
hash_bytes(const uint8_t *p, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
    for (size_t at = 0; at + 8 < n; at += 8) { /* the words before the last (which tail_word reads) */
        h = (h ^ load64(p + at)) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    if (n)
        h = (h ^ tail_word(p, n)) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 32);
}

/* Whether a[0:n] == b[0:n], short ones compared by words read inside both. */
static inline int
same_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (n <= 8)
        return n == 0 || tail_word(a, n) == tail_word(b, n);
    if (n <= 16)
        return load64(a) == load64(b) && load64(a + n - 8) == load64(b + n - 8);
    return memcmp(a, b, n) == 0;
}

/* The slot key of token p[0:n) of hash h (hash_bytes) at blob offset start (Slot). */
static inline uint64_t
slot_key(const uint8_t *p, size_t n, uint64_t h, uint32_t start)
{
    return n <= INLINE_KEY ? tail_word(p, n) : (h >> 32) << 32 | start;
}

/* Whether slot s holds token p[0:n) of key (slot_key: a longer token's own start is not known; its hash
 * half is compared, then its bytes in blob). */
static inline int
slot_holds(const Slot *s, const uint8_t *blob, const uint8_t *p, size_t n, uint64_t key)
{
    if (s->size != n)
        return 0;
    if (n <= INLINE_KEY)
        return s->key == key;
    return s->key >> 32 == key >> 32 && same_bytes(blob + (uint32_t)s->key, p, n);
}

/* The two bits of a Bloom filter's block (a 64-byte line) that a hash h (hash_bytes) sets. */
static inline uint64_t *
bloom_block(const Encoder *e, uint64_t h, unsigned *a, unsigned *b)
{
    uint64_t g = h * 0x9E3779B97F4A7C15ull; /* (bits apart from those that pick the block and the slot) */
    *a = (unsigned)(g >> 55);
    *b = (unsigned)(g >> 46) & 511;
    return e->bloom + ((h >> 32) & (e->bloom_blocks - 1)) * 8;
}

/* Whether a piece of hash h may be a token (of 2 bytes or more): 0 means it is not. One line of a table
 * of a byte per token (128-256 KB) where the rank table's probe reads one of 4-8 MB: most pairs a merge
 * asks about are no token, and ~5% of those pass. */
static inline int
bloom_may(const Encoder *e, uint64_t h)
{
    unsigned a, b;
    const uint64_t *block = bloom_block(e, h, &a, &b);
    return (int)((block[a >> 6] >> (a & 63)) & (block[b >> 6] >> (b & 63)) & 1);
}

/* The rank of token p[0:n) (n >= 2) of hash h, or NO_RANK: the Bloom filter first, then the rank table. */
static inline uint32_t
rank_hashed(const Encoder *e, const uint8_t *p, size_t n, uint64_t h)
{
    if (!bloom_may(e, h))
        return NO_RANK;
    uint64_t key = slot_key(p, n, h, 0);
    for (uint64_t i = h & e->mask;; i = (i + 1) & e->mask) {
        const Slot *s = &e->slots[i];
        if (s->size == 0)
            return NO_RANK;
        if (slot_holds(s, e->blob, p, n, key))
            return s->rank;
    }
}

static inline uint32_t
rank_of(const Encoder *e, const uint8_t *p, size_t n)
{
    return n == 1 ? e->byte_rank[p[0]] : rank_hashed(e, p, n, hash_bytes(p, n));
}

/* The merge functions below take sp: 1 for an sp_tune encoder, 0 for byte-level BPE, always a constant
 * where they are inlined, so byte-level BPE runs none of SentencePiece's branches. */
#if defined(__GNUC__) || defined(__clang__)
#define FORCE_INLINE inline __attribute__((always_inline))
#define NO_INLINE __attribute__((noinline))
#else
#define FORCE_INLINE inline
#define NO_INLINE
#endif

/* The merge priority of the pair p[0:left) + p[left:n) (n >= 2): the rank of the token they make; under
 * sp_tune its score's place (ties equal: the leftmost pair wins, as SentencePiece's agenda orders them),
 * or with merge rules the priority of the rule that is this split (NO_RANK where none is). */
static FORCE_INLINE uint32_t
pair_rank(const Encoder *e, const uint8_t *p, size_t n, size_t left, const int sp)
{
    if (!sp && n == 2) /* (two bytes: from the direct table, without a hash or a probe) */
        return e->pair2[p[0] << 8 | p[1]];
    uint32_t r = rank_hashed(e, p, n, hash_bytes(p, n));
    if (!sp || r == NO_RANK)
        return r;
    if (e->splits == NULL)
        return e->prio[r] & ~SP_NOT_WHOLE;
    uint32_t found = NO_RANK; /* (the last rule of a pair listed twice: HF's table keeps its last rank) */
    for (uint32_t k = e->split_at[r]; k < e->split_at[r + 1]; k++)
        if (e->splits[k] >> 32 == left)
            found = (uint32_t)e->splits[k];
    return found;
}

/* ------------------------------------------------------------------------------- id buffer */

#define LOCAL_IDS 256   /* ids a call keeps on the stack before it allocates */
#define LOCAL_UTF8 1024 /* bytes of a piece's UTF-8 likewise */

typedef struct {
    uint32_t *v;
    size_t n, cap;
    int count_only, failed;
    uint32_t *local; /* the caller's own buffer v starts in (not freed here), or NULL */
    size_t merged;   /* pieces merged (none of the tables kept them): what the front routes by */
} Ids;

static inline void
emit(Ids *out, uint32_t id)
{
    if (out->count_only) {
        out->n++;
        return;
    }
    if (out->n == out->cap) {
        size_t cap = out->cap * 2 + 64;
        int local = out->v == out->local;
        uint32_t *v = local ? malloc(cap * sizeof(uint32_t)) : realloc(out->v, cap * sizeof(uint32_t));
        if (v == NULL) {
            out->failed = 1;
            return;
        }
        if (local && out->n)
            memcpy(v, out->v, out->n * sizeof(uint32_t));
        out->v = v;
        out->cap = cap;
    }
    out->v[out->n++] = id;
}

/* Frees what emit allocated (not the caller's own buffer). */
static inline void
ids_free(Ids *out)
{
    if (out->v != out->local)
        free(out->v);
}

/* ------------------------------------------------------------------------------- BPE */

/* Whether byte b starts a part: every byte in byte-level BPE, a character's first byte under sp_tune
 * (SentencePiece merges characters). */
static FORCE_INLINE int
part_start(uint8_t b, const int sp)
{
    return !sp || (b & 0xC0) != 0x80;
}

/* The array scan's state over a piece p of n bytes: parts [start[i], start[i + 1]) (start[m - 1] = n),
 * and rank[i] the priority of parts i and i + 1 joined (NO_RANK: none). Returns m. */
static FORCE_INLINE size_t
pairs_init(const Encoder *e, const uint8_t *p, size_t n, uint32_t *start, uint32_t *rank, const int sp)
{
    if (!sp) { /* a part per byte */
        for (size_t i = 0; i <= n; i++) {
            start[i] = (uint32_t)i;
            rank[i] = i + 1 < n ? pair_rank(e, p + i, 2, 1, 0) : NO_RANK;
        }
        return n + 1;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (part_start(p[i], sp))
            start[m++] = (uint32_t)i;
    start[m++] = (uint32_t)n;
    for (size_t i = 0; i < m; i++)
        rank[i] = i + 2 < m ? pair_rank(e, p + start[i], start[i + 2] - start[i], start[i + 1] - start[i], sp) : NO_RANK;
    return m;
}

/* Emits the token of part p[0:n), or under sp_tune its bytes' where it is none (an unknown character:
 * SentencePiece's byte fallback). Returns 0, or -1 where a byte is no token either. */
static FORCE_INLINE int
emit_part(const Encoder *e, const uint8_t *p, size_t n, Ids *out, const int sp)
{
    uint32_t r = rank_of(e, p, n);
    if (r != NO_RANK) {
        emit(out, r);
        return 0;
    }
    if (!sp || n == 1)
        return -1;
    for (size_t k = 0; k < n; k++) {
        if (e->byte_rank[p[k]] == NO_RANK)
            return -1;
        emit(out, e->byte_rank[p[k]]);
    }
    return 0;
}

/* The lowest pair rank, leftmost on ties (*at: its part), or NO_RANK where no pair is a token. */
static inline uint32_t
lowest_pair(const uint32_t *rank, size_t m, size_t *at)
{
    uint32_t best = NO_RANK;
    for (size_t i = 0; i + 1 < m; i++)
        if (rank[i] < best) {
            best = rank[i];
            *at = i;
        }
    return best;
}

/* Merges parts at and at + 1 (the pair ranks of at - 1 and at change); m: the part bounds, one fewer. */
static FORCE_INLINE void
merge_pair(const Encoder *e, const uint8_t *p, uint32_t *start, uint32_t *rank, size_t *m, size_t at, const int sp)
{
    rank[at] =
        at + 3 < *m ? pair_rank(e, p + start[at], start[at + 3] - start[at], start[at + 2] - start[at], sp) : NO_RANK;
    if (at > 0)
        rank[at - 1] = pair_rank(e, p + start[at - 1], start[at + 2] - start[at - 1], start[at] - start[at - 1], sp);
    memmove(start + at + 1, start + at + 2, (*m - at - 2) * sizeof(uint32_t));
    memmove(rank + at + 1, rank + at + 2, (*m - at - 2) * sizeof(uint32_t));
    (*m)--;
}

/* Pieces shorter than SHORT_PIECE: tiktoken's array scan (find the lowest rank, merge, update the
 * two neighbours). Returns 0, or -1 where a part is no token (a byte missing from the ranks). In
 * byte-level BPE a pair's rank is the id of the part it merges to: each part's id is kept as it merges
 * (tok), so the parts left are emitted without a probe of the rank table each. */
static FORCE_INLINE int
merge_short_as(const Encoder *e, const uint8_t *p, size_t n, Ids *out, const int sp)
{
    uint32_t start[SHORT_PIECE + 1], rank[SHORT_PIECE + 1], tok[SHORT_PIECE];
    size_t at = 0, m = pairs_init(e, p, n, start, rank, sp);
    for (size_t i = 0; !sp && i < n; i++)
        tok[i] = e->byte_rank[p[i]];
    while (lowest_pair(rank, m, &at) != NO_RANK) {
        if (!sp) { /* (parts at and at + 1 of the m - 1 become one) */
            tok[at] = rank[at];
            memmove(tok + at + 1, tok + at + 2, (m - at - 3) * sizeof(uint32_t));
        }
        merge_pair(e, p, start, rank, &m, at, sp);
    }
    for (size_t i = 0; i + 1 < m; i++) {
        if (!sp) {
            if (tok[i] == NO_RANK)
                return -1;
            emit(out, tok[i]);
        }
        else if (emit_part(e, p + start[i], start[i + 1] - start[i], out, sp) < 0)
            return -1;
    }
    return 0;
}

static int
merge_short_bytes(const Encoder *e, const uint8_t *p, size_t n, Ids *out)
{
    return merge_short_as(e, p, n, out, 0);
}

static NO_INLINE int
merge_short_sp(const Encoder *e, const uint8_t *p, size_t n, Ids *out)
{
    return merge_short_as(e, p, n, out, 1);
}

/* (two functions, not one with both bodies: byte-level BPE's is then inlined where it was before) */
static inline int
merge_short(const Encoder *e, const uint8_t *p, size_t n, Ids *out)
{
    return e->prio != NULL ? merge_short_sp(e, p, n, out) : merge_short_bytes(e, p, n, out);
}

typedef struct {
    uint32_t rank, left, end; /* the pair [left, end) of two adjacent parts */
} Pair;

static inline int
pair_less(const Pair *a, const Pair *b)
{
    return a->rank < b->rank || (a->rank == b->rank && a->left < b->left);
}

static void
heap_push(Pair *heap, size_t *size, Pair item)
{
    size_t i = (*size)++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!pair_less(&item, &heap[up]))
            break;
        heap[i] = heap[up];
        i = up;
    }
    heap[i] = item;
}

static Pair
heap_pop(Pair *heap, size_t *size)
{
    Pair top = heap[0], last = heap[--(*size)];
    size_t i = 0, n = *size;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && pair_less(&heap[c + 1], &heap[c]))
            c++;
        if (!pair_less(&heap[c], &last))
            break;
        heap[i] = heap[c];
        i = c;
    }
    if (n)
        heap[i] = last;
    return top;
}

/* Long pieces: the same merges in the same order (lowest rank, leftmost first), from a heap of
 * candidate pairs over a linked list of parts; a popped pair that no longer spans two adjacent
 * parts is stale and skipped. Returns 0, -1 (a part is no token) or -2 (out of memory). */
static FORCE_INLINE int
merge_long_as(const Encoder *e, const uint8_t *p, size_t n, Ids *out, const int sp)
{
    uint32_t *next = malloc((n + 1) * sizeof(uint32_t)), *prev = malloc((n + 1) * sizeof(uint32_t));
    uint32_t *tok = sp ? NULL : malloc(n * sizeof(uint32_t)); /* each part's id, at its start (as above) */
    Pair *heap = malloc(2 * n * sizeof(Pair) + sizeof(Pair));
    size_t size = 0;
    int status = 0;
    if (next == NULL || prev == NULL || heap == NULL || (!sp && tok == NULL)) {
        status = -2;
        goto done;
    }
    for (size_t i = 0; !sp && i < n; i++)
        tok[i] = e->byte_rank[p[i]];
    /* the parts: bytes, or characters under sp_tune (next and prev are read at part starts only) */
    uint32_t last = UINT32_MAX;
    for (size_t i = 0; i <= n; i++)
        if (i == n || part_start(p[i], sp)) {
            if (last != UINT32_MAX)
                next[last] = (uint32_t)i;
            prev[i] = last;
            last = (uint32_t)i;
        }
    next[n] = (uint32_t)(n + 1);
    for (uint32_t i = 0; i < n && next[i] < n; i = next[i]) {
        uint32_t r = pair_rank(e, p + i, next[next[i]] - i, next[i] - i, sp);
        if (r != NO_RANK)
            heap_push(heap, &size, (Pair){r, i, next[next[i]]});
    }
    while (size) {
        Pair top = heap_pop(heap, &size);
        uint32_t left = top.left, right = next[left];
        if (right == UINT32_MAX || right >= n || next[right] != top.end)
            continue; /* stale: left was merged away, or one of the two parts grew */
        next[left] = top.end;
        next[right] = UINT32_MAX;
        if (!sp)
            tok[left] = top.rank;
        if (top.end < n)
            prev[top.end] = left;
        /* the pairs the merged part now forms with its neighbours (at most two per merge) */
        if (prev[left] != UINT32_MAX) {
            uint32_t before = prev[left];
            uint32_t r = pair_rank(e, p + before, top.end - before, left - before, sp);
            if (r != NO_RANK)
                heap_push(heap, &size, (Pair){r, before, top.end});
        }
        if (top.end < n) {
            uint32_t after = next[top.end];
            uint32_t r = pair_rank(e, p + left, after - left, top.end - left, sp);
            if (r != NO_RANK)
                heap_push(heap, &size, (Pair){r, left, after});
        }
    }
    for (uint32_t i = 0; i < n; i = next[i]) {
        if (!sp && tok[i] != NO_RANK)
            emit(out, tok[i]);
        else if (!sp || emit_part(e, p + i, next[i] - i, out, sp) < 0) {
            status = -1;
            goto done;
        }
    }
done:
    free(next);
    free(prev);
    free(tok);
    free(heap);
    return status;
}

static int
merge_long_bytes(const Encoder *e, const uint8_t *p, size_t n, Ids *out)
{
    return merge_long_as(e, p, n, out, 0);
}

static NO_INLINE int
merge_long_sp(const Encoder *e, const uint8_t *p, size_t n, Ids *out)
{
    return merge_long_as(e, p, n, out, 1);
}

static inline int
merge_long(const Encoder *e, const uint8_t *p, size_t n, Ids *out)
{
    return e->prio != NULL ? merge_long_sp(e, p, n, out) : merge_long_bytes(e, p, n, out);
}

/* The pieces of one call that are no token, each with where its ids were emitted first: words
 * recur within a text, and their merges are the costly part (a probe of the 4 MB rank table per
 * pair, mostly cache misses). Private to the call, so encoders on other threads share nothing. */
typedef struct {
    uint64_t hash;
    uint32_t key, size;  /* its bytes in the arena */
    uint32_t ids, n_ids; /* where its ids start in the output, and how many */
} Memo;

#define MEMO_SLOTS 4096  /* at most (fewer for a short text: allocating costs more than it saves) */
#define MEMO_MAX_PIECE 64 /* bytes: longer pieces are not remembered */

#define LOCAL_MEMOS 64 /* the fewest slots, which a call keeps on the stack */

typedef struct {
    Memo *slots;
    size_t size; /* slots: a power of two, filled to half at most */
    size_t used;
    uint8_t *arena;
    size_t arena_size;
    Memo *local_slots; /* the caller's buffers for LOCAL_MEMOS slots (not freed here), or NULL */
    uint8_t *local_arena;
} Memos;

/* Whether slot keeps piece p[0:n) (hash h) for out: then its ids are emitted (or counted). */
static inline int
kept_hit(const Kept *slot, uint64_t h, const uint8_t *p, size_t n, Ids *out)
{
    uint32_t n_ids = slot->n_ids & ~KEPT_COUNTED;
    if (slot->hash != h || slot->size != n || !same_bytes((const uint8_t *)(slot->data + n_ids), p, n))
        return 0;
    if (out->count_only) {
        out->n += n_ids;
        return 1;
    }
    if (slot->n_ids & KEPT_COUNTED)
        return 0;
    for (uint32_t k = 0; k < n_ids; k++)
        emit(out, slot->data[k]);
    return 1;
}

/* Keeps a piece's ids (out->v[from:], or their number in a count) in its slot of the call's kept table
 * (slot: NULL where the piece is too long for one), else in its wide slot (likewise), where they fit. */
static inline void
keep(Kept *slot, Kept *wide, uint64_t h, const uint8_t *p, size_t n, const Ids *out, size_t from)
{
    size_t n_ids = out->n - from;
    if (h == 0 || out->failed)
        return;
    if (slot == NULL || 4 * n_ids + n > KEPT_DATA)
        slot = wide;
    if (slot == NULL || 4 * n_ids + n > WIDE_DATA)
        return;
    slot->hash = h;
    slot->size = (uint16_t)n;
    slot->n_ids = (uint16_t)(n_ids | (out->count_only ? KEPT_COUNTED : 0));
    if (!out->count_only)
        memcpy(slot->data, out->v + from, n_ids * sizeof(uint32_t));
    memcpy(slot->data + n_ids, p, n);
}

static int
encode_piece(const Encoder *e, const uint8_t *p, size_t n, Ids *out, Memos *memos, KeptTable *kept, Hot *hot)
{
    if (n == 1) {
        if (e->byte_rank[p[0]] == NO_RANK)
            return -1;
        emit(out, e->byte_rank[p[0]]);
        return 0;
    }
    uint64_t h = hash_bytes(p, n);
    Hot *hs = NULL;
    if (hot != NULL && n <= HOT_BYTES) {
        hs = &hot[h & (HOT_SLOTS - 1)];
        if (hs->hash == h && hs->size == n && same_bytes(hs->bytes, p, n)) {
            emit(out, hs->rank);
            return 0;
        }
    }
    uint32_t whole = rank_hashed(e, p, n, h);
    if (whole != NO_RANK && (e->prio == NULL || !(e->prio[whole] & SP_NOT_WHOLE))) {
        emit(out, whole);
        if (hs != NULL && h != 0) {
            hs->hash = h;
            hs->rank = whole;
            hs->size = (uint8_t)n;
            memcpy(hs->bytes, p, n);
        }
        return 0;
    }
    Kept *slot = NULL, *wide = NULL; /* (a piece too long to fit every slot is looked up in both) */
    if (kept != NULL && n < WIDE_DATA) {
        if (n < KEPT_DATA && kept_hit(slot = kept_slot(kept->slots, h, KEPT_SLOTS, KEPT_BYTES), h, p, n, out))
            return 0;
        wide = kept_slot(kept->wide, h, WIDE_SLOTS, WIDE_BYTES);
        if (n * 5 > KEPT_DATA && kept_hit(wide, h, p, n, out)) /* (a shorter piece always fits a slot) */
            return 0;
    }
    out->merged++; /* (a recurrence within the call, found below, is counted too: it was merged here) */
    if (n > MEMO_MAX_PIECE) {
        size_t before = out->n;
        int status = n >= SHORT_PIECE ? merge_long(e, p, n, out) : merge_short(e, p, n, out);
        if (status == 0 && wide != NULL)
            keep(slot, wide, h, p, n, out, before);
        return status;
    }
    if (memos->slots == NULL) {
        if (memos->size == LOCAL_MEMOS && memos->local_slots != NULL) {
            memos->slots = memset(memos->local_slots, 0, LOCAL_MEMOS * sizeof(Memo));
            memos->arena = memos->local_arena;
        }
        else {
            memos->slots = calloc(memos->size, sizeof(Memo));
            memos->arena = malloc(memos->size / 2 * MEMO_MAX_PIECE);
            if (memos->slots == NULL || memos->arena == NULL)
                return -2;
        }
    }
    size_t i = h & (memos->size - 1);
    for (; memos->slots[i].size; i = (i + 1) & (memos->size - 1)) {
        const Memo *m = &memos->slots[i];
        if (m->hash == h && m->size == n && same_bytes(memos->arena + m->key, p, n)) {
            for (uint32_t k = 0; k < m->n_ids; k++)
                emit(out, out->count_only ? 0 : out->v[m->ids + k]);
            return 0;
        }
    }
    size_t before = out->n;
    int status = merge_short(e, p, n, out);
    if (status == 0 && wide != NULL)
        keep(slot, wide, h, p, n, out, before);
    if (status == 0 && !out->failed && memos->used < memos->size / 2) {
        memcpy(memos->arena + memos->arena_size, p, n);
        memos->slots[i] = (Memo){h, (uint32_t)memos->arena_size, (uint32_t)n, (uint32_t)before,
                                 (uint32_t)(out->n - before)};
        memos->arena_size += n;
        memos->used++;
    }
    return status;
}

/* ------------------------------------------------------------------------------- pre-tokeniser */

typedef struct {
    const void *data;
    int kind;
    Py_ssize_t n;
    const uint8_t *classes;
} Text;

static FORCE_INLINE Py_UCS4
ch(const Text *t, Py_ssize_t i)
{
    return PyUnicode_READ(t->kind, t->data, i);
}

static FORCE_INLINE uint8_t
cls(const Text *t, Py_ssize_t i)
{
    return t->classes[ch(t, i)];
}

/* DeepSeek-V4's letters-and-marks class (not CJK), and its punctuation-and-symbols class (not CJK) */
static inline int
ds_lm(uint8_t c)
{
    return (c & (C_L | C_M)) && !(c & C_CJK);
}

static inline int
ds_ps(uint8_t c)
{
    return (c & (C_P | C_S)) && !(c & C_CJK);
}

static inline int
ascii_letter(Py_UCS4 c)
{
    return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

static inline int
ascii_punct(Py_UCS4 c)
{
    return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
}

/* The whitespace alternatives at i, a whitespace character: 5 \s*[\r\n]+ (the run up to its last \r or
 * \n), else 6 \s+(?!\S) (the whole run where it ends the text or a class in lookahead_ok follows it,
 * the run less its last space otherwise), else 7 \s+ (a lone space). */
static FORCE_INLINE Py_ssize_t
space_run(const Text *t, Py_ssize_t i, uint8_t lookahead_ok)
{
    Py_ssize_t n = t->n, w, last_newline = -1;
    for (w = i; w < n && (cls(t, w) & C_WS); w++)
        if (ch(t, w) == '\r' || ch(t, w) == '\n')
            last_newline = w;
    if (last_newline >= 0) /* 5 */
        return last_newline + 1;
    if (w == n || (cls(t, w) & lookahead_ok)) /* 6 */
        return w;
    return w - i >= 2 ? w - 1 : w; /* 6 with its last space given back, else 7 */
}

/* The end of the pre-token that starts at i, for toklane.tokenizer.deepseek_v4.PATTERN:
 *   1 [^\r\n L P S N CJK]? LM+      2 [ASCII punct][A-Za-z]+     3 ' '?PS+[\r\n]*
 *   4 \p{N}{1,3}     5 \s*[\r\n]+     6 \s+(?![^\s N CJK])     7 \s+     8 CJK+
 *   9 (?:OTHER(?!LM))+        (LM, PS: not CJK; OTHER: none of \s L M P S N CJK)
 * -1 where none matches (the caller declines the text). */
static FORCE_INLINE Py_ssize_t
ds_piece(const Text *t, Py_ssize_t i)
{
    Py_ssize_t n = t->n, j;
    Py_UCS4 c = ch(t, i);
    uint8_t f = t->classes[c];
    uint8_t g = i + 1 < n ? cls(t, i + 1) : 0;
    /* 1: the optional prefix may be anything but \r \n L P S N CJK (so a mark, a space, OTHER) */
    if (ds_lm(f) || (c != '\r' && c != '\n' && !(f & (C_L | C_P | C_S | C_N | C_CJK)) && i + 1 < n && ds_lm(g))) {
        for (j = i + 1; j < n && ds_lm(cls(t, j)); j++)
            ;
        return j;
    }
    if (ascii_punct(c) && i + 1 < n && ascii_letter(ch(t, i + 1))) { /* 2 */
        for (j = i + 2; j < n && ascii_letter(ch(t, j)); j++)
            ;
        return j;
    }
    if (ds_ps(f) || (c == ' ' && i + 1 < n && ds_ps(g))) { /* 3 */
        for (j = i + 1; j < n && ds_ps(cls(t, j)); j++)
            ;
        while (j < n && (ch(t, j) == '\r' || ch(t, j) == '\n'))
            j++;
        return j;
    }
    if (f & C_N) { /* 4: the CJK ranges hold no digit */
        for (j = i + 1; j < n && j < i + 3 && (cls(t, j) & C_N); j++)
            ;
        return j;
    }
    if (f & C_WS) /* 5, 6, 7: the lookahead (?!\S) holds before a digit or CJK (another segment) */
        return space_run(t, i, C_N | C_CJK);
    if (f & C_CJK) { /* 8 */
        for (j = i + 1; j < n && (cls(t, j) & C_CJK); j++)
            ;
        return j;
    }
    if (f == 0) { /* 9: OTHER followed by LM started alternative 1 */
        for (j = i; j < n && cls(t, j) == 0 && !(j + 1 < n && ds_lm(cls(t, j + 1))); j++)
            ;
        return j > i ? j : -1;
    }
    return -1;
}

/* The last alternatives of the Llama 3 and o200k families at i, after letters and digits:
 *   4 ' '?[^\s LET N]+[\r\n]* (with '/' too where slash: o200k's [\r\n/]*)
 *   5 \s*[\r\n]+     6 \s+(?!\S)     7 \s+
 * not_pso: the classes that are not punctuation here (\s, N and the letter class). -1: no match. */
static FORCE_INLINE Py_ssize_t
punct_or_space(const Text *t, Py_ssize_t i, uint8_t not_pso, int slash)
{
    Py_ssize_t n = t->n, j;
    Py_UCS4 c = ch(t, i);
    uint8_t f = t->classes[c];
    if (!(f & not_pso) || (c == ' ' && i + 1 < n && !(cls(t, i + 1) & not_pso))) { /* 4 */
        for (j = i + 1; j < n && !(cls(t, j) & not_pso); j++)
            ;
        while (j < n && (ch(t, j) == '\r' || ch(t, j) == '\n' || (slash && ch(t, j) == '/')))
            j++;
        return j;
    }
    if (f & C_WS)
        return space_run(t, i, 0);
    return -1;
}

/* The end of the pre-token that starts at i, for the Llama-3 family of patterns in
 * toklane.tokenizer.patterns (LLAMA3, which reads as cl100k's CL100K does; QWEN2; QWEN3_5):
 *   1 (?i:'s|'t|'re|'ve|'m|'ll|'d)     2 [^\r\n L N]?LET+     3 \p{N}{1,digits}
 *   4 ' '?[^\s LET N]+[\r\n]*     5 \s*[\r\n]+     6 \s+(?!\S)     7 \s+
 * LET is L and M where marks join letters (QWEN3_5), else L; digits is 3 (LLAMA3) or 1 (Qwen).
 * (?i) folds case as Unicode does: 's' also matches U+017F and U+017F only. -1: no match. */
static inline int
fold_is(Py_UCS4 c, char lower)
{
    return c < 0x80 && (c | 0x20) == (Py_UCS4)lower;
}

static FORCE_INLINE Py_ssize_t
llama_piece(const Text *t, Py_ssize_t i, uint8_t let, Py_ssize_t digits)
{
    Py_ssize_t n = t->n, j;
    Py_UCS4 c = ch(t, i);
    uint8_t f = t->classes[c];
    if (c == '\'' && i + 1 < n) { /* 1 */
        Py_UCS4 a = ch(t, i + 1), b = i + 2 < n ? ch(t, i + 2) : 0;
        if (fold_is(a, 's') || a == 0x17F || fold_is(a, 't') || fold_is(a, 'm') || fold_is(a, 'd'))
            return i + 2;
        if ((fold_is(a, 'r') || fold_is(a, 'v')) && fold_is(b, 'e'))
            return i + 3;
        if (fold_is(a, 'l') && fold_is(b, 'l'))
            return i + 3;
    }
    uint8_t g = i + 1 < n ? cls(t, i + 1) : 0;
    /* 2: the optional prefix may be anything but \r \n L N */
    if ((f & let) || (c != '\r' && c != '\n' && !(f & (C_L | C_N)) && (g & let))) {
        for (j = i + 1; j < n && (cls(t, j) & let); j++)
            ;
        return j;
    }
    if (f & C_N) { /* 3 */
        for (j = i + 1; j < n && j < i + digits && (cls(t, j) & C_N); j++)
            ;
        return j;
    }
    return punct_or_space(t, i, C_WS | C_N | let, 0);
}

/* The o200k family's case-aware grammar (toklane.tokenizer.patterns.O200K; TEKKEN without the
 * contractions, digits one at a time), in a class table where letters carry C_P for Lu/Lt and C_S
 * for Ll (letters hold neither otherwise: unicode_classes.class_table(cased=True)):
 *   1 [^\r\n L N]?U*W+C?     2 [^\r\n L N]?U+W*C?     3 \p{N}{1,digits}
 *   4 ' '?[^\s L N]+[\r\n/]*     5 \s*[\r\n]+     6 \s+(?!\S)     7 \s+
 * U: [Lu Lt Lm Lo M], W: [Ll Lm Lo M], C: (?i:'s|'t|'re|'ve|'m|'ll|'d) where contractions is set.
 * In 1, U* gives back characters until W+ can start: the first non-U character where it is Ll
 * (W+ then runs on), else the last U character that is also W (Lm Lo M: W+ is that one). */
static inline int
in_u(uint8_t f)
{
    return (f & C_M) || ((f & C_L) && !(f & C_S));
}

static inline int
in_w(uint8_t f)
{
    return (f & C_M) || ((f & C_L) && !(f & C_P));
}

static FORCE_INLINE Py_ssize_t
contraction(const Text *t, Py_ssize_t j)
{
    Py_ssize_t n = t->n;
    if (j + 1 >= n || ch(t, j) != '\'')
        return j;
    Py_UCS4 a = ch(t, j + 1), b = j + 2 < n ? ch(t, j + 2) : 0;
    if (fold_is(a, 's') || a == 0x17F || fold_is(a, 't') || fold_is(a, 'm') || fold_is(a, 'd'))
        return j + 2;
    if (((fold_is(a, 'r') || fold_is(a, 'v')) && fold_is(b, 'e')) || (fold_is(a, 'l') && fold_is(b, 'l')))
        return j + 3;
    return j;
}

/* U*W+ from j: its end, or -1 */
static FORCE_INLINE Py_ssize_t
cased_lower_from(const Text *t, Py_ssize_t j)
{
    Py_ssize_t n = t->n, a, k, last_both = -1;
    for (a = j; a < n && in_u(cls(t, a)); a++)
        if (in_w(cls(t, a)))
            last_both = a;
    if (a < n && in_w(cls(t, a))) { /* an Ll after the U run: W+ runs on from it */
        for (k = a + 1; k < n && in_w(cls(t, k)); k++)
            ;
        return k;
    }
    return last_both >= 0 ? last_both + 1 : -1;
}

/* U+W* from j: its end, or -1 */
static FORCE_INLINE Py_ssize_t
cased_upper_from(const Text *t, Py_ssize_t j)
{
    Py_ssize_t n = t->n, a;
    for (a = j; a < n && in_u(cls(t, a)); a++)
        ;
    if (a == j)
        return -1;
    while (a < n && in_w(cls(t, a)))
        a++;
    return a;
}

static FORCE_INLINE Py_ssize_t
o200k_piece(const Text *t, Py_ssize_t i, int contractions, Py_ssize_t digits)
{
    Py_ssize_t n = t->n, j;
    Py_UCS4 c = ch(t, i);
    uint8_t f = t->classes[c];
    int prefix = c != '\r' && c != '\n' && !(f & (C_L | C_N)) && i + 1 < n;
    /* 1, then 2: each first with the optional prefix, then without */
    if ((prefix && (j = cased_lower_from(t, i + 1)) >= 0) || (j = cased_lower_from(t, i)) >= 0 ||
        (prefix && (j = cased_upper_from(t, i + 1)) >= 0) || (j = cased_upper_from(t, i)) >= 0)
        return contractions ? contraction(t, j) : j;
    if (f & C_N) { /* 3 */
        for (j = i + 1; j < n && j < i + digits && (cls(t, j) & C_N); j++)
            ;
        return j;
    }
    return punct_or_space(t, i, C_WS | C_N | C_L, 1);
}

/* SentencePiece's words (the normalised text, spaces as U+2581): a run of U+2581 with what follows up to
 * the next one, \u2581*[^\u2581]+|\u2581+. No piece of the models sp_tune takes holds U+2581 after
 * another character, so merges never cross this split: it only bounds each merge's work. */
static FORCE_INLINE Py_ssize_t
sp_piece(const Text *t, Py_ssize_t i)
{
    Py_ssize_t n = t->n, j = i;
    while (j < n && ch(t, j) == 0x2581)
        j++;
    while (j < n && ch(t, j) != 0x2581)
        j++;
    return j;
}

/* The end of the pre-token that starts at i under grammar g (-1: no match). */
static FORCE_INLINE Py_ssize_t
piece_end(int g, const Text *t, Py_ssize_t i)
{
    switch (g) {
    case G_DEEPSEEK_V4:
        return ds_piece(t, i);
    case G_QWEN3_5:
        return llama_piece(t, i, C_L | C_M, 1);
    case G_QWEN2:
        return llama_piece(t, i, C_L, 1);
    case G_LLAMA3:
        return llama_piece(t, i, C_L, 3);
    case G_O200K:
        return o200k_piece(t, i, 1, 3);
    case G_TEKKEN:
        return o200k_piece(t, i, 0, 1);
    default: /* G_SENTENCEPIECE */
        return sp_piece(t, i);
    }
}

/* The UTF-8 of the characters a..b of a str's data of one kind (a constant where it is inlined, so each
 * kind gets its own loop without a switch per character) at *o, which moves past them: 0, or 1 where
 * one is a lone surrogate. */
static FORCE_INLINE int
utf8_run(const void *data, const int kind, Py_ssize_t a, Py_ssize_t b, uint8_t **at)
{
    uint8_t *o = *at;
    for (Py_ssize_t i = a; i < b; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 0x80)
            *o++ = (uint8_t)c;
        else if (c < 0x800) {
            *o++ = (uint8_t)(0xC0 | (c >> 6));
            *o++ = (uint8_t)(0x80 | (c & 0x3F));
        }
        else if (c < 0x10000) {
            if ((c & 0xF800) == 0xD800)
                return 1;
            *o++ = (uint8_t)(0xE0 | (c >> 12));
            *o++ = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
            *o++ = (uint8_t)(0x80 | (c & 0x3F));
        }
        else {
            *o++ = (uint8_t)(0xF0 | (c >> 18));
            *o++ = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
            *o++ = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
            *o++ = (uint8_t)(0x80 | (c & 0x3F));
        }
    }
    *at = o;
    return 0;
}

/* The UTF-8 bytes of t[a:b) into *buf (grown as needed), their count in *size: 0; 1 where t[a:b)
 * holds a lone surrogate (C_DECLINE's only code points: the text is declined, read as it is converted);
 * -2 when out of memory. */
static FORCE_INLINE int
utf8_of(const Text *t, Py_ssize_t a, Py_ssize_t b, uint8_t **buf, size_t *cap, size_t *size)
{
    size_t need = (size_t)(b - a) * 4;
    if (need > *cap) { /* (*buf is the caller's buffer while *cap is LOCAL_UTF8: its bytes are not kept) */
        uint8_t *grown = *cap == LOCAL_UTF8 ? malloc(need) : realloc(*buf, need);
        if (grown == NULL)
            return -2;
        *buf = grown;
        *cap = need;
    }
    const void *data = t->data;
    uint8_t *o = *buf;
    int kind = t->kind;
    int surrogate = kind == PyUnicode_1BYTE_KIND ? utf8_run(data, PyUnicode_1BYTE_KIND, a, b, &o)
                    : kind == PyUnicode_2BYTE_KIND ? utf8_run(data, PyUnicode_2BYTE_KIND, a, b, &o)
                                                   : utf8_run(data, PyUnicode_4BYTE_KIND, a, b, &o);
    if (surrogate)
        return 1;
    *size = (size_t)(o - *buf);
    return 0;
}

/* encode_text for a str of one kind (a constant where it is inlined: the pre-tokeniser's every read of
 * a character then skips PyUnicode_READ's switch on the kind). */
static FORCE_INLINE int
encode_text_as(const Encoder *e, const Text *text, int ascii, Ids *out, const int kind)
{
    const Text one_kind = {text->data, kind, text->n, text->classes}, *t = &one_kind;
    /* (aligned as malloc's would be, or better: pieces are read a word at a time) */
    _Alignas(64) uint8_t local[LOCAL_UTF8];
    uint8_t *buf = local;
    size_t cap = LOCAL_UTF8;
    int status = 0;
    _Alignas(64) Memo local_slots[LOCAL_MEMOS];
    _Alignas(64) uint8_t local_arena[LOCAL_MEMOS / 2 * MEMO_MAX_PIECE];
    Memos memos = {NULL, LOCAL_MEMOS, 0, NULL, 0, local_slots, local_arena};
    KeptTable *table = kept_take(e->kept);
    Hot *hot = table != NULL ? table->hot : NULL;
    while (memos.size < MEMO_SLOTS && (Py_ssize_t)memos.size < t->n / 2) /* a slot per two characters */
        memos.size *= 2;
    for (Py_ssize_t i = 0; i < t->n;) {
        Py_ssize_t j = piece_end(e->grammar, t, i);
        if (j <= i) {
            status = 1;
            break;
        }
        const uint8_t *p;
        size_t size;
        if (ascii) {
            p = (const uint8_t *)t->data + i;
            size = (size_t)(j - i);
        }
        else if ((status = utf8_of(t, i, j, &buf, &cap, &size)) != 0) /* (a lone surrogate anywhere in
                                                                          a piece declines the text) */
            break;
        else
            p = buf;
        int r = encode_piece(e, p, size, out, &memos, table, hot);
        if (r == -1) {
            status = 1;
            break;
        }
        if (r == -2 || out->failed) {
            status = -2;
            break;
        }
        i = j;
    }
    kept_release(table);
    if (buf != local)
        free(buf);
    if (memos.slots != local_slots) {
        free(memos.slots);
        free(memos.arena);
    }
    return status;
}

/* 0; 1 to decline the text; -2 out of memory. */
static int
encode_text(const Encoder *e, const Text *t, int ascii, Ids *out)
{
    switch (t->kind) {
    case PyUnicode_1BYTE_KIND:
        return encode_text_as(e, t, ascii, out, PyUnicode_1BYTE_KIND);
    case PyUnicode_2BYTE_KIND:
        return encode_text_as(e, t, ascii, out, PyUnicode_2BYTE_KIND);
    default:
        return encode_text_as(e, t, ascii, out, PyUnicode_4BYTE_KIND);
    }
}

/* ------------------------------------------------------------------------------- Python */

static void
encoder_free_struct(Encoder *e)
{
    for (int k = 0; e->kept != NULL && k < KEPT_TABLES; k++) {
        free(e->kept[k].slots);
        free(e->kept[k].wide);
        free(e->kept[k].hot);
    }
    free(e->kept);
    free(e->prio);
    free(e->split_at);
    free(e->splits);
    free(e->pair2);
    free(e->bloom);
    free(e->starts);
    id_ints_clear(&e->ids);
    if (e->image.obj != NULL)
        PyBuffer_Release(&e->image);
    else {
        free(e->by_rank);
        free(e->slots);
        free(e->blob);
    }
    free(e->classes);
    free(e);
}

static void
encoder_free(PyObject *capsule)
{
    Encoder *e = PyCapsule_GetPointer(capsule, "toklane._bpe.Encoder");
    if (e != NULL)
        encoder_free_struct(e);
}

/* size zeroed bytes for the hash table: on Linux, aligned to and asking for transparent huge pages
 * (madvise mode: the system default), so a 4-8 MB table is a few page faults, not a thousand or two,
 * and its random look-ups miss the TLB less; calloc elsewhere. Freed with free(). */
static void *
table_alloc(size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)2 << 20;
    if (size >= huge) {
        void *p = NULL;
        if (posix_memalign(&p, huge, size) != 0)
            return NULL;
        madvise(p, size, MADV_HUGEPAGE); /* (advice: where it is refused, small pages) */
        memset(p, 0, size);
        return p;
    }
#endif
    return calloc(1, size);
}

/* A new encoder without tables (no ranks yet: encoder_new adds its own, build_mapped an image's), NULL
 * (an exception set) on failure. */
static Encoder *
encoder_shell(PyObject *classes, long grammar)
{
    if (grammar < G_DEEPSEEK_V4 || grammar > G_SENTENCEPIECE) {
        PyErr_Format(PyExc_ValueError, "build: unknown grammar %ld", grammar);
        return NULL;
    }
    if (!PyBytes_Check(classes) || PyBytes_GET_SIZE(classes) != N_CODEPOINTS) {
        PyErr_SetString(PyExc_ValueError, "build: classes must hold one byte per code point");
        return NULL;
    }
    Encoder *e = calloc(1, sizeof(Encoder));
    if (e == NULL || (e->classes = malloc(N_CODEPOINTS)) == NULL ||
        (e->kept = calloc(KEPT_TABLES, sizeof(KeptTable))) == NULL) {
        if (e != NULL)
            free(e->classes);
        free(e);
        PyErr_NoMemory();
        return NULL;
    }
#if HAVE_ATOMICS
    for (int k = 0; k < KEPT_TABLES; k++)
        atomic_flag_clear(&e->kept[k].busy);
#endif
    memcpy(e->classes, PyBytes_AS_STRING(classes), N_CODEPOINTS);
    e->grammar = (int)grammar;
    for (int b = 0; b < 256; b++)
        e->byte_rank[b] = NO_RANK;
    return e;
}

/* A new encoder for count ranks of total bytes in all, NULL (an exception set) on failure. */
static Encoder *
encoder_new(Py_ssize_t count, Py_ssize_t total, PyObject *classes, long grammar)
{
    Encoder *e = encoder_shell(classes, grammar);
    if (e == NULL)
        return NULL;
    if (total >= UINT32_MAX || count >= UINT32_MAX / 4) {
        encoder_free_struct(e);
        PyErr_SetString(PyExc_ValueError, "build: ranks too large");
        return NULL;
    }
    uint64_t slots = 1024;
    while (slots < (uint64_t)count * 2)
        slots *= 2;
    e->slots = table_alloc(slots * sizeof(Slot));
    e->blob = malloc((size_t)total + 1);
    e->starts = malloc(slots * sizeof(uint32_t));
    if (e->slots == NULL || e->blob == NULL || e->starts == NULL) {
        encoder_free_struct(e);
        PyErr_NoMemory();
        return NULL;
    }
    e->mask = slots - 1;
    return e;
}

/* Why encoder_put refused a token (0: it did not). */
enum { PUT_OK, PUT_EMPTY, PUT_RANK, PUT_TWICE };

/* Adds the token of n bytes already at blob offset start, of rank r and hash h (hash_bytes): PUT_OK, or
 * why not (an empty token, a rank out of range, a token given twice). Touches no Python object: callable
 * without the GIL. */
static int
encoder_place(Encoder *e, uint32_t start, size_t n, long long r, uint64_t h, uint32_t *max_rank)
{
    if (n == 0)
        return PUT_EMPTY;
    if (r < 0 || r >= NO_RANK)
        return PUT_RANK;
    const uint8_t *p = e->blob + start;
    uint64_t key = slot_key(p, n, h, start), i = h & e->mask;
    for (; e->slots[i].size != 0; i = (i + 1) & e->mask) /* one probe: the free slot, or the token */
        if (slot_holds(&e->slots[i], e->blob, p, n, key))
            return PUT_TWICE;
    if (n == 1)
        e->byte_rank[p[0]] = (uint32_t)r;
    e->slots[i] = (Slot){key, (uint32_t)r, (uint32_t)n};
    e->starts[i] = start;
    if ((uint32_t)r > *max_rank)
        *max_rank = (uint32_t)r;
    return PUT_OK;
}

/* Adds token p[0:n) of rank r, its bytes appended to the blob at *used (encoder_place). */
static int
encoder_put(Encoder *e, const uint8_t *p, size_t n, long long r, uint32_t *used, uint32_t *max_rank)
{
    if (n == 0)
        return PUT_EMPTY;
    memcpy(e->blob + *used, p, n);
    int why = encoder_place(e, *used, n, r, hash_bytes(p, n), max_rank);
    if (why == PUT_OK)
        *used += (uint32_t)n;
    return why;
}

/* The exception for an encoder_put refusal; -1. */
static int
put_failed(int why)
{
    PyErr_SetString(PyExc_ValueError, why == PUT_EMPTY  ? "build: ranks must map non-empty bytes to ints"
                                      : why == PUT_RANK ? "build: a rank is out of range"
                                                        : "build: a token is given twice");
    return -1;
}

/* encoder_put, with the exception set where it refuses (-1). */
static int
encoder_add(Encoder *e, const uint8_t *p, size_t n, long long r, uint32_t *used, uint32_t *max_rank)
{
    int why = encoder_put(e, p, n, r, used, max_rank);
    return why == PUT_OK ? 0 : put_failed(why);
}

/* What pair_rank reads before the rank table, made from it at load (by_rank set): e->pair2 (what
 * rank_hashed finds for each two bytes) and e->bloom (a byte per token of 2 bytes or more, in blocks of
 * 64 bytes: ~5% of absent pieces pass). 0, or -1 out of memory. */
static int
pair_tables_build(Encoder *e)
{
    if ((e->pair2 = malloc(65536 * sizeof(uint32_t))) == NULL)
        return -1;
    memset(e->pair2, 0xFF, 65536 * sizeof(uint32_t)); /* NO_RANK */
    for (uint64_t i = 0; i <= e->mask; i++)
        if (e->slots[i].size == 2) /* (its key: tail_word's p[0] | p[1] << 8 | p[1] << 16) */
            e->pair2[(e->slots[i].key & 0xFF) << 8 | (e->slots[i].key >> 8 & 0xFF)] = e->slots[i].rank;
    e->bloom_blocks = 64;
    while (e->bloom_blocks * 64 < e->n_ranks)
        e->bloom_blocks *= 2;
    if ((e->bloom = calloc(e->bloom_blocks * 8, sizeof(uint64_t))) == NULL)
        return -1;
    for (uint32_t r = 0; r < e->n_ranks; r++) {
        uint32_t size = (uint32_t)e->by_rank[r];
        if (size < 2)
            continue;
        unsigned a, b;
        uint64_t *block = bloom_block(e, hash_bytes(e->blob + (e->by_rank[r] >> 32), size), &a, &b);
        block[a >> 6] |= 1ull << (a & 63);
        block[b >> 6] |= 1ull << (b & 63);
    }
    return 0;
}

/* The encoder as a capsule once every token is in: the by-rank table for decoding made from the
 * slots. Frees e and returns NULL on failure. */
static PyObject *
encoder_finish(Encoder *e, uint32_t max_rank)
{
    e->n_ranks = max_rank + 1;
    e->by_rank = calloc(e->n_ranks, sizeof(uint64_t));
    if (e->by_rank == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (uint64_t i = 0; i <= e->mask; i++) {
        const Slot *s = &e->slots[i];
        if (s->size != 0)
            e->by_rank[s->rank] = ((uint64_t)e->starts[i] << 32) | s->size;
    }
    free(e->starts);
    e->starts = NULL;
    if (pair_tables_build(e) < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    if (id_ints_init(&e->ids, (Py_ssize_t)e->n_ranks) < 0)
        goto fail;
    PyObject *capsule = PyCapsule_New(e, "toklane._bpe.Encoder", encoder_free);
    if (capsule == NULL)
        goto fail;
    return capsule;
fail:
    encoder_free_struct(e);
    return NULL;
}

static PyObject *
bpe_build(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyDict_Check(args[0]) || !PyBytes_Check(args[1]) || !PyLong_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "build(ranks: dict[bytes, int], classes: bytes, grammar: int)");
        return NULL;
    }
    PyObject *ranks = args[0];
    long grammar = PyLong_AsLong(args[2]);
    Py_ssize_t count = PyDict_Size(ranks), total = 0, pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(ranks, &pos, &key, &value)) {
        if (!PyBytes_Check(key) || PyBytes_GET_SIZE(key) == 0 || !PyLong_Check(value)) {
            PyErr_SetString(PyExc_ValueError, "build: ranks must map non-empty bytes to ints");
            return NULL;
        }
        total += PyBytes_GET_SIZE(key);
    }
    Encoder *e = encoder_new(count, total, args[1], grammar);
    if (e == NULL)
        return NULL;
    uint32_t used = 0, max_rank = 0;
    pos = 0;
    while (PyDict_Next(ranks, &pos, &key, &value)) {
        long long r = PyLong_AsLongLong(value);
        if (r == -1 && PyErr_Occurred())
            PyErr_Clear(); /* (out of range: reported below) */
        if (encoder_add(e, (const uint8_t *)PyBytes_AS_STRING(key), (size_t)PyBytes_GET_SIZE(key), r, &used,
                        &max_rank) < 0) {
            encoder_free_struct(e);
            return NULL;
        }
    }
    return encoder_finish(e, max_rank);
}

/* A ranks payload (toklane.tokenizer.image_cache's: u32 count n, u32 blob size; int32 offsets[n + 1];
 * int32 ranks[n]; the tokens' bytes, one blob), read in place. */
typedef struct {
    uint32_t n, size;
    const uint8_t *offsets, *ranks, *blob;
} Packed;

/* Whether a payload of len bytes at at has that layout's sizes, with offsets 0 first and the blob's
 * size last (each offset in between is checked where it is read); fills p. */
static int
packed_view(const uint8_t *at, Py_ssize_t len, Packed *p)
{
    int32_t first, last;
    if (len < 8)
        return 0;
    memcpy(&p->n, at, 4);
    memcpy(&p->size, at + 4, 4);
    if ((uint64_t)len != 8 + 4 * ((uint64_t)p->n + 1) + 4 * (uint64_t)p->n + p->size)
        return 0;
    p->offsets = at + 8;
    p->ranks = p->offsets + 4 * ((size_t)p->n + 1);
    p->blob = p->ranks + 4 * (size_t)p->n;
    memcpy(&first, p->offsets, 4);
    memcpy(&last, p->offsets + 4 * (size_t)p->n, 4);
    return first == 0 && (uint32_t)last == p->size;
}

/* Sorts v[0:n) by the high 32 bits of each value (two stable passes of 16 bits; tmp: room for n). Leaves
 * v as it is where the counts cannot be allocated (its callers need the order for speed only). */
static void
sort_by_high_word(uint64_t *v, uint64_t *tmp, size_t n)
{
    size_t *count = malloc((65536 + 1) * sizeof(size_t));
    if (count == NULL)
        return;
    for (int shift = 32; shift < 64; shift += 16) {
        memset(count, 0, (65536 + 1) * sizeof(size_t));
        for (size_t i = 0; i < n; i++)
            count[((v[i] >> shift) & 0xFFFF) + 1]++;
        for (size_t d = 0; d < 65536; d++)
            count[d + 1] += count[d];
        for (size_t i = 0; i < n; i++)
            tmp[count[(v[i] >> shift) & 0xFFFF]++] = v[i];
        memcpy(v, tmp, n * sizeof(uint64_t));
    }
    free(count);
}

/* build_packed(payload, classes, grammar): as build, over toklane.tokenizer.image_cache's ranks payload
 * (Packed), read in place: no bytes or int object per token. */
static PyObject *
bpe_build_packed(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyLong_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "build_packed(payload: bytes-like, classes: bytes, grammar: int)");
        return NULL;
    }
    long grammar = PyLong_AsLong(args[2]);
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    PyObject *result = NULL;
    Packed pk;
    if (!packed_view(view.buf, view.len, &pk))
        goto bad;
    uint32_t n = pk.n, size = pk.size;
    const uint8_t *offsets = pk.offsets, *ranks = pk.ranks;
    Encoder *e = encoder_new((Py_ssize_t)n, (Py_ssize_t)size, args[1], grammar);
    if (e == NULL)
        goto done;
    uint64_t *order = malloc(2 * ((size_t)n + 1) * sizeof(uint64_t));
    if (order == NULL) {
        encoder_free_struct(e);
        PyErr_NoMemory();
        goto done;
    }
    uint32_t max_rank = 0;
    int why = PUT_OK, unsound = 0;
    /* (the GIL released: a server imports its web stack on another thread meanwhile) */
    Py_BEGIN_ALLOW_THREADS
    memcpy(e->blob, pk.blob, size); /* the payload's blob is the encoder's: tokens keep their offsets */
    for (uint32_t k = 0; k < n; k++) {
        int32_t a, b;
        memcpy(&a, offsets + 4 * (size_t)k, 4);
        memcpy(&b, offsets + 4 * ((size_t)k + 1), 4);
        if (a < 0 || b <= a || (uint32_t)b > size) {
            unsound = 1;
            break;
        }
        order[k] = ((hash_bytes(e->blob + a, (size_t)(b - a)) & e->mask) << 32) | k;
    }
    /* Tokens go in by their home slot (a radix sort on it): the table fills front to back, where random
     * order missed the cache on each of its ~16 MB (ranks tables of 100-250K tokens: 20-38 ms -> less).
     * Linear probing finds every token whatever the order they went in. */
    if (!unsound)
        sort_by_high_word(order, order + n + 1, n);
    for (uint32_t j = 0; j < n && !unsound && why == PUT_OK; j++) {
        uint32_t k = (uint32_t)order[j];
        int32_t a, b, r;
        memcpy(&a, offsets + 4 * (size_t)k, 4);
        memcpy(&b, offsets + 4 * ((size_t)k + 1), 4);
        memcpy(&r, ranks + 4 * (size_t)k, 4);
        why = encoder_place(e, (uint32_t)a, (size_t)(b - a), r, hash_bytes(e->blob + a, (size_t)(b - a)), &max_rank);
    }
    Py_END_ALLOW_THREADS
    free(order);
    if (unsound || why != PUT_OK) {
        encoder_free_struct(e);
        if (unsound)
            goto bad;
        put_failed(why);
        goto done;
    }
    result = encoder_finish(e, max_rank);
    goto done;
bad:
    PyErr_SetString(PyExc_ValueError, "build_packed: not a sound ranks payload");
done:
    PyBuffer_Release(&view);
    return result;
}

/* An encoder image (toklane.tokenizer.engines.compiled's, kept in the image cache and memory-mapped by
 * later loads, so N processes share one copy): the header, then the hash table's slots, by_rank and
 * the blob, each where the last ends (8-byte aligned where the payload is: image_cache aligns it). */
typedef struct {
    uint32_t magic, version;
    uint64_t mask;
    uint32_t n_ranks, blob_size;
    uint32_t byte_rank[256];
} ImageHeader;

#define IMAGE_MAGIC 0x4e454b54u /* "TKEN" */
#define IMAGE_VERSION 3u /* 2: hash_bytes reads a piece's last word whole; 3: a short token is its slot's key */

/* The merge rules of sp_tune's third argument (native uint32 triples: rank, byte length of the left part,
 * priority; a pair's rules in the order given) as e->split_at and e->splits; -1 with an exception set
 * where they are not sound. */
static int
sp_rules(Encoder *e, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return -1;
    const uint32_t *t = view.buf;
    size_t m = (size_t)view.len / (3 * sizeof(uint32_t));
    const char *why = (size_t)view.len % (3 * sizeof(uint32_t)) ? "rules: uint32 triples" : NULL;
    uint32_t *at = calloc((size_t)e->n_ranks + 1, sizeof(uint32_t)), *fill = NULL;
    uint64_t *splits = malloc(m ? m * sizeof(uint64_t) : 1);
    if (at == NULL || splits == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (size_t k = 0; why == NULL && k < m; k++) {
        uint32_t r = t[3 * k], left = t[3 * k + 1];
        if (r >= e->n_ranks || left == 0 || left >= (e->by_rank[r] & 0xFFFFFFFFu))
            why = "rules: a rule's token or split is out of range";
        else if (t[3 * k + 2] >= SP_NOT_WHOLE - 1)
            why = "rules: a priority is out of range";
        else
            at[r + 1]++;
    }
    if (why != NULL) {
        PyErr_SetString(PyExc_ValueError, why);
        goto fail;
    }
    for (uint32_t r = 0; r < e->n_ranks; r++)
        at[r + 1] += at[r];
    if ((fill = malloc(((size_t)e->n_ranks + 1) * sizeof(uint32_t))) == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    memcpy(fill, at, ((size_t)e->n_ranks + 1) * sizeof(uint32_t));
    for (size_t k = 0; k < m; k++)
        splits[fill[t[3 * k]]++] = (uint64_t)t[3 * k + 1] << 32 | t[3 * k + 2];
    free(fill);
    PyBuffer_Release(&view);
    e->split_at = at;
    e->splits = splits;
    return 0;
fail:
    free(at);
    free(splits);
    PyBuffer_Release(&view);
    return -1;
}

/* sp_tune(encoder, priorities, rules=None) -> the number of pieces that are not their own word's merge,
 * turning a G_SENTENCEPIECE encoder (ranks: a SentencePiece-style BPE model's ids) into that model's
 * merges: parts start as characters, not bytes; a character no piece holds is its bytes' tokens (byte
 * fallback). Without rules (a .model file), any two parts that make a piece merge, by the piece's
 * priority (priorities: native uint32 per rank, from the score, best first, equal scores equal), the
 * leftmost on ties, as SentencePiece's agenda does. With rules (a tokenizer.json's merges: see sp_rules)
 * only the pairs they list merge, by their own priority (HF's BPE); priorities are then read only for
 * this function's flags. A word whose bytes are a piece is that piece only where the merges build it:
 * those that they do not are found here and flagged. */
static PyObject *
bpe_sp_tune(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 && nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "sp_tune(encoder, priorities: bytes-like, rules: bytes-like = None)");
        return NULL;
    }
    Encoder *e = PyCapsule_GetPointer(args[0], "toklane._bpe.Encoder");
    if (e == NULL)
        return NULL;
    if (e->grammar != G_SENTENCEPIECE || e->prio != NULL || e->image.obj != NULL) {
        PyErr_SetString(PyExc_ValueError, "sp_tune: a new G_SENTENCEPIECE encoder built from ranks");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[1], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    if ((size_t)view.len != (size_t)e->n_ranks * sizeof(uint32_t)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "sp_tune: one uint32 priority per rank");
        return NULL;
    }
    uint32_t *prio = malloc(view.len ? (size_t)view.len : 1);
    if (prio == NULL) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    memcpy(prio, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    for (uint32_t r = 0; r < e->n_ranks; r++)
        if (prio[r] >= SP_NOT_WHOLE - 1) {
            free(prio);
            PyErr_SetString(PyExc_ValueError, "sp_tune: a priority is out of range");
            return NULL;
        }
    if (nargs == 3 && args[2] != Py_None && sp_rules(e, args[2]) < 0) {
        free(prio);
        return NULL;
    }
    e->prio = prio;
    Ids out = {NULL, 0, 0, 0, 0};
    long flagged = 0;
    for (uint32_t r = 0; r < e->n_ranks; r++) {
        size_t size = (size_t)(e->by_rank[r] & 0xFFFFFFFFu);
        if (size < 2)
            continue;
        const uint8_t *piece = e->blob + (e->by_rank[r] >> 32);
        out.n = 0;
        int status = size < SHORT_PIECE ? merge_short(e, piece, size, &out) : merge_long(e, piece, size, &out);
        if (status == -2 || out.failed) {
            free(out.v);
            return PyErr_NoMemory();
        }
        if (status != 0 || out.n != 1 || out.v[0] != r) {
            prio[r] |= SP_NOT_WHOLE;
            flagged++;
        }
    }
    free(out.v);
    return PyLong_FromLong(flagged);
}

/* encoder_image(encoder) -> the encoder's tables as an image (build_mapped reads it back). */
static PyObject *
bpe_encoder_image(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 1) {
        PyErr_SetString(PyExc_TypeError, "encoder_image(encoder)");
        return NULL;
    }
    Encoder *e = PyCapsule_GetPointer(args[0], "toklane._bpe.Encoder");
    if (e == NULL)
        return NULL;
    if (e->prio != NULL) {
        PyErr_SetString(PyExc_ValueError, "encoder_image: an sp_tune encoder has no image");
        return NULL;
    }
    uint64_t blob_size = 0;
    for (uint32_t r = 0; r < e->n_ranks; r++) {
        uint64_t end = (e->by_rank[r] >> 32) + (e->by_rank[r] & 0xFFFFFFFFu);
        if (end > blob_size)
            blob_size = end;
    }
    size_t n_slots = (size_t)e->mask + 1;
    size_t size = sizeof(ImageHeader) + n_slots * sizeof(Slot) + (size_t)e->n_ranks * sizeof(uint64_t) + blob_size;
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    if (out == NULL)
        return NULL;
    char *at = PyBytes_AS_STRING(out);
    ImageHeader head = {IMAGE_MAGIC, IMAGE_VERSION, e->mask, e->n_ranks, (uint32_t)blob_size, {0}};
    memcpy(head.byte_rank, e->byte_rank, sizeof(head.byte_rank));
    memcpy(at, &head, sizeof head);
    at += sizeof head;
    memcpy(at, e->slots, n_slots * sizeof(Slot));
    at += n_slots * sizeof(Slot);
    memcpy(at, e->by_rank, (size_t)e->n_ranks * sizeof(uint64_t));
    at += (size_t)e->n_ranks * sizeof(uint64_t);
    memcpy(at, e->blob, blob_size);
    return out;
}

/* build_mapped(image, classes, grammar) -> encoder over an encoder image read in place (a memory map:
 * it keeps the buffer), or None where the image is not sound: its sizes, alignment and every slot and
 * by_rank entry are checked against the blob (a checksum that holds is not trusted alone). */
static PyObject *
bpe_build_mapped(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyLong_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "build_mapped(image: bytes-like, classes: bytes, grammar: int)");
        return NULL;
    }
    long grammar = PyLong_AsLong(args[2]);
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    ImageHeader head;
    const uint8_t *base = view.buf;
    int sound = (size_t)view.len >= sizeof head && ((uintptr_t)base & 7) == 0;
    size_t n_slots = 0;
    if (sound) {
        memcpy(&head, base, sizeof head);
        n_slots = (size_t)head.mask + 1;
        sound = head.magic == IMAGE_MAGIC && head.version == IMAGE_VERSION && head.mask < UINT32_MAX &&
                (n_slots & head.mask) == 0 && n_slots >= 2 &&
                (uint64_t)view.len == sizeof head + (uint64_t)n_slots * sizeof(Slot) +
                                          (uint64_t)head.n_ranks * sizeof(uint64_t) + head.blob_size;
    }
    const Slot *slots = (const Slot *)(base + sizeof head);
    const uint64_t *by_rank = (const uint64_t *)(base + sizeof head + n_slots * sizeof(Slot));
    const uint8_t *blob = (const uint8_t *)(by_rank + (sound ? head.n_ranks : 0));
    size_t empty = 0;
    for (size_t i = 0; sound && i < n_slots; i++) {
        const Slot *sl = &slots[i];
        if (sl->size == 0)
            empty++;
        else
            sound = sl->rank < head.n_ranks &&
                    (sl->size <= INLINE_KEY || (uint64_t)(uint32_t)sl->key + sl->size <= head.blob_size);
    }
    for (uint32_t r = 0; sound && r < head.n_ranks; r++)
        sound = (by_rank[r] >> 32) + (by_rank[r] & 0xFFFFFFFFu) <= head.blob_size;
    for (int b = 0; sound && b < 256; b++)
        sound = head.byte_rank[b] == NO_RANK || head.byte_rank[b] < head.n_ranks;
    sound = sound && empty > 0; /* (a look-up ends at an empty slot) */
    if (!sound) {
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    Encoder *e = encoder_shell(args[1], grammar);
    if (e == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    e->slots = (Slot *)slots;
    e->blob = (uint8_t *)blob;
    e->by_rank = (uint64_t *)by_rank;
    e->mask = head.mask;
    e->n_ranks = head.n_ranks;
    memcpy(e->byte_rank, head.byte_rank, sizeof e->byte_rank);
    e->image = view; /* (released with the encoder) */
    if (pair_tables_build(e) < 0) {
        encoder_free_struct(e);
        return PyErr_NoMemory();
    }
    if (id_ints_init(&e->ids, (Py_ssize_t)e->n_ranks) < 0) {
        encoder_free_struct(e);
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(e, "toklane._bpe.Encoder", encoder_free);
    if (capsule == NULL)
        encoder_free_struct(e);
    return capsule;
}

/* packed_check(payload) -> (layout, dense, singles, lowest): whether the payload's layout holds (sizes,
 * offsets rising from 0 to the blob's end), whether its ranks are lowest..lowest+n-1 each once, how many
 * distinct bytes are tokens of their own, and the lowest rank (0 for none). Read in place. */
static PyObject *
bpe_packed_check(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 1) {
        PyErr_SetString(PyExc_TypeError, "packed_check(payload: bytes-like)");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    int dense = 0, singles = 0;
    int32_t lowest = 0;
    Packed pk;
    int layout = packed_view(view.buf, view.len, &pk);
    if (layout) {
        uint32_t n = pk.n, size = pk.size;
        const uint8_t *offsets = pk.offsets, *ranks = pk.ranks, *blob = pk.blob;
        int32_t previous = 0, next, r;
        uint8_t bytes_seen[256] = {0};
        for (uint32_t k = 0; layout && k < n; k++) {
            memcpy(&next, offsets + 4 * ((size_t)k + 1), 4);
            if (next <= previous || (uint32_t)next > size)
                layout = 0;
            else if (next - previous == 1 && !bytes_seen[blob[previous]]) {
                bytes_seen[blob[previous]] = 1;
                singles++;
            }
            previous = next;
        }
        layout = layout && (uint32_t)previous == size;
        for (uint32_t k = 0; layout && k < n; k++) {
            memcpy(&r, ranks + 4 * (size_t)k, 4);
            if (k == 0 || r < lowest)
                lowest = r;
        }
        uint8_t *seen = layout ? calloc((size_t)n + 1, 1) : NULL;
        if (layout && seen == NULL) {
            PyBuffer_Release(&view);
            return PyErr_NoMemory();
        }
        dense = layout;
        for (uint32_t k = 0; dense && k < n; k++) {
            memcpy(&r, ranks + 4 * (size_t)k, 4);
            int64_t i = (int64_t)r - lowest;
            if (i >= (int64_t)n || seen[i])
                dense = 0;
            else
                seen[i] = 1;
        }
        free(seen);
    }
    PyBuffer_Release(&view);
    return Py_BuildValue("(OOii)", layout ? Py_True : Py_False, dense ? Py_True : Py_False, singles, (int)lowest);
}

/* Whether HF's BPE (merge rules, not ranks) builds token r from its own bytes p[0:n): it merges two
 * adjacent parts only where the token they make has exactly that split as its rule (left[t]: the byte
 * length of rule t's left part), lowest rule first. O(n^2): a token's length. -1: out of memory. */
static int
rules_build(const Encoder *e, const uint32_t *left, uint32_t n_left, const uint8_t *p, size_t n, uint32_t r)
{
    uint32_t *start = malloc((n + 1) * sizeof(uint32_t));
    if (start == NULL)
        return -1;
    size_t m = n + 1; /* parts are [start[i], start[i + 1]) */
    for (size_t i = 0; i < m; i++)
        start[i] = (uint32_t)i;
    for (;;) {
        uint32_t best = NO_RANK;
        size_t at = 0;
        for (size_t i = 0; i + 2 < m; i++) {
            uint32_t t = rank_of(e, p + start[i], start[i + 2] - start[i]);
            if (t < best && t < n_left && left[t] == start[i + 1] - start[i]) {
                best = t;
                at = i;
            }
        }
        if (best == NO_RANK)
            break;
        memmove(start + at + 1, start + at + 2, (m - at - 2) * sizeof(uint32_t));
        m--;
    }
    int built = m == 2 && rank_of(e, p, n) == r;
    free(start);
    return built;
}

/* Whether ranked BPE builds token r from its own bytes p[0:n) by merges that are each the rule of the
 * token they make (left[t]: the byte length of rule t's left part): then HF's merge rules build it the
 * same way (their candidates are a subset of ranked BPE's, and ranked BPE's choice, lowest and leftmost,
 * is among them at every step). 1: built so; 0: ranked BPE does not build r; 2: a merge is not its
 * token's rule (undecided: rules_build decides); -1: out of memory. One pass of ranked BPE, each pair's
 * rank looked up once (rules_build looks every pair up again after each merge). */
static int
ranked_rules_build(const Encoder *e, const uint32_t *left, uint32_t n_left, const uint8_t *p, size_t n, uint32_t r)
{
    uint32_t small[2 * (SHORT_PIECE + 1)];
    uint32_t *start = n < SHORT_PIECE ? small : malloc(2 * (n + 1) * sizeof(uint32_t));
    if (start == NULL)
        return -1;
    uint32_t *rank = start + n + 1;
    size_t at = 0, m = pairs_init(e, p, n, start, rank, 0);
    int result = 1;
    for (uint32_t best; (best = lowest_pair(rank, m, &at)) != NO_RANK;) {
        if (best >= n_left || left[best] != start[at + 1] - start[at]) {
            result = 2;
            break;
        }
        merge_pair(e, p, start, rank, &m, at, 0);
    }
    if (result == 1)
        result = m == 2 && rank_of(e, p, n) == r;
    if (start != small)
        free(start);
    return result;
}

/* irregular(encoder, left=None) -> the ranks of the tokens that rank BPE does not build from their own
 * bytes (they merge into other tokens, or not at all) and, given left (the byte length of each token's
 * rule's left part, native uint32 per rank, 0 for none), that HF's merge rules do not build from them
 * either way: then a text that is such a token alone, or holds one, may read differently in ranked BPE
 * and in the reference (toklane.tokenizer.irregular). One pass over the table. */
static PyObject *
bpe_irregular(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 1 && nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "irregular(encoder, left=None)");
        return NULL;
    }
    Encoder *e = PyCapsule_GetPointer(args[0], "toklane._bpe.Encoder");
    if (e == NULL)
        return NULL;
    Py_buffer view = {0};
    const uint32_t *left = NULL;
    uint32_t n_left = 0;
    if (nargs == 2 && args[1] != Py_None) {
        if (PyObject_GetBuffer(args[1], &view, PyBUF_SIMPLE) < 0)
            return NULL;
        left = view.buf;
        n_left = (uint32_t)(view.len / sizeof(uint32_t));
    }
    PyObject *found = PyList_New(0);
    if (found == NULL) {
        if (left != NULL)
            PyBuffer_Release(&view);
        return NULL;
    }
    Ids out = {NULL, 0, 0, 0, 0};
    int status = 0;
    for (uint32_t r = 0; r < e->n_ranks && status == 0; r++) {
        uint32_t size = (uint32_t)(e->by_rank[r] & 0xFFFFFFFFu);
        if (size < 2)
            continue;
        const uint8_t *p = e->blob + (e->by_rank[r] >> 32);
        /* given left, one pass decides most tokens; the undecided (and all, without left) take two */
        int both = left != NULL ? ranked_rules_build(e, left, n_left, p, size, r) : 2;
        if (both < 0) {
            status = -2;
            break;
        }
        int bad = !both;
        if (both == 2) {
            out.n = 0;
            int got = size >= SHORT_PIECE ? merge_long(e, p, size, &out) : merge_short(e, p, size, &out);
            if (got == -2 || out.failed) {
                status = -2;
                break;
            }
            bad = got == -1 || out.n != 1 || out.v[0] != r;
            if (!bad && left != NULL) {
                int rules = rules_build(e, left, n_left, p, size, r);
                if (rules < 0) {
                    status = -2;
                    break;
                }
                bad = !rules;
            }
        }
        if (bad) {
            PyObject *rank = PyLong_FromUnsignedLong(r);
            if (rank == NULL || PyList_Append(found, rank) < 0)
                status = -3;
            Py_XDECREF(rank);
        }
    }
    free(out.v);
    if (left != NULL)
        PyBuffer_Release(&view);
    if (status != 0) {
        Py_DECREF(found);
        return status == -2 ? PyErr_NoMemory() : NULL;
    }
    return found;
}

/* decode(encoder, ids) -> the bytes of ids (a list or tuple of ranks) joined, or None where one is
 * not a rank the encoder holds (the caller decides). */
static PyObject *
bpe_decode(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "decode(encoder, ids)");
        return NULL;
    }
    Encoder *e = PyCapsule_GetPointer(args[0], "toklane._bpe.Encoder");
    if (e == NULL)
        return NULL;
    PyObject *seq = PySequence_Fast(args[1], "decode: ids must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    size_t total = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        if (!PyLong_Check(items[k]))
            goto none;
        long long r = PyLong_AsLongLong(items[k]);
        if (r == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            goto none;
        }
        if (r < 0 || r >= e->n_ranks || (e->by_rank[r] & 0xFFFFFFFFu) == 0)
            goto none;
        total += e->by_rank[r] & 0xFFFFFFFFu;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
    if (out == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    char *o = PyBytes_AS_STRING(out);
    for (Py_ssize_t k = 0; k < count; k++) {
        uint64_t slot = e->by_rank[PyLong_AsLongLong(items[k])];
        uint32_t size = (uint32_t)(slot & 0xFFFFFFFFu);
        memcpy(o, e->blob + (slot >> 32), size);
        o += size;
    }
    Py_DECREF(seq);
    return out;
none:
    Py_DECREF(seq);
    Py_RETURN_NONE;
}

/* encode's result: a list of ids, their number, or bytes of native uint32 ids (for join_ids) */
#define AS_LIST 0
#define AS_COUNT 1
#define AS_ARRAY 2

/* encode's work: text (a str) by e in mode; None to decline it. */
static PyObject *
encode_object(Encoder *e, PyObject *text, long mode, size_t *merged)
{
    int count = mode == AS_COUNT;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) /* a legacy string an extension built: made canonical first */
        return NULL;
#endif
    Text t = {PyUnicode_DATA(text), PyUnicode_KIND(text), PyUnicode_GET_LENGTH(text), e->classes};
    int ascii = PyUnicode_IS_ASCII(text);
    /* (a short text's ids in a buffer on the stack: a malloc and free per call are a visible share of
     * a chat string's encode) */
    uint32_t local[LOCAL_IDS];
    Ids out = {NULL, 0, 0, count, 0, local};
    if (!count) {
        out.cap = (size_t)t.n / 2 + 16;
        if (out.cap <= LOCAL_IDS) {
            out.v = local;
            out.cap = LOCAL_IDS;
        }
        else if ((out.v = malloc(out.cap * sizeof(uint32_t))) == NULL)
            return PyErr_NoMemory();
    }
    int status;
    if (t.n >= RELEASE_GIL_FROM) {
        Py_BEGIN_ALLOW_THREADS
        status = encode_text(e, &t, ascii, &out);
        Py_END_ALLOW_THREADS
    }
    else
        status = encode_text(e, &t, ascii, &out);
    if (status) {
        ids_free(&out);
        if (status == 1)
            Py_RETURN_NONE;
        return PyErr_NoMemory();
    }
    if (merged != NULL)
        *merged = out.merged;
    if (count)
        return PyLong_FromSize_t(out.n);
    PyObject *result;
    if (mode == AS_ARRAY)
        result = PyBytes_FromStringAndSize((const char *)out.v, (Py_ssize_t)(out.n * sizeof(uint32_t)));
    else if ((result = PyList_New((Py_ssize_t)out.n)) != NULL && id_ints_fill(&e->ids, result, 0, out.v, out.n) < 0)
        Py_CLEAR(result);
    ids_free(&out);
    return result;
}

static PyObject *
bpe_encode(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "encode(encoder, text: str, mode: int)");
        return NULL;
    }
    Encoder *e = PyCapsule_GetPointer(args[0], "toklane._bpe.Encoder");
    long mode = PyLong_AsLong(args[2]);
    if (e == NULL || (mode == -1 && PyErr_Occurred()))
        return NULL;
    if (mode != AS_LIST && mode != AS_COUNT && mode != AS_ARRAY) {
        PyErr_Format(PyExc_ValueError, "encode: unknown mode %ld", mode);
        return NULL;
    }
    return encode_object(e, args[1], mode, NULL);
}

/* The spans of nfc_spans in one kind of str, as start/end pairs appended to bounds: 0, or -1 when
 * it cannot grow. Runs without the GIL. */
#define NFC_SCAN(NAME, CHAR)                                                                       \
    static int NAME(const uint8_t *flags, const CHAR *chars, Py_ssize_t n, Positions *bounds)      \
    {                                                                                              \
        Py_ssize_t starter = 0, end = -1;                                                          \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            if (!flags[chars[i]]) {                                                                \
                starter = i;                                                                       \
                continue;                                                                          \
            }                                                                                      \
            Py_ssize_t j = i + 1;                                                                  \
            while (j < n && flags[chars[j]])                                                       \
                j++;                                                                               \
            if (bounds->count && starter <= end) /* joins the span before */                       \
                bounds->at[bounds->count - 1] = j;                                                 \
            else if (positions_add(bounds, starter) || positions_add(bounds, j))                   \
                return -1;                                                                         \
            end = j;                                                                               \
            i = j - 1;                                                                             \
        }                                                                                          \
        return 0;                                                                                  \
    }
NFC_SCAN(nfc_scan_1, Py_UCS1)
NFC_SCAN(nfc_scan_2, Py_UCS2)
NFC_SCAN(nfc_scan_4, Py_UCS4)

#define GIL_FREE_SCAN 4096 /* characters from which nfc_spans scans without the GIL (a short scan costs less) */

/* The spans of text (one kind of str) nfc_spans finds with flags, into bounds: 0, or -1 when it cannot
 * grow. Runs without the GIL. */
static int
nfc_scan(const uint8_t *flags, int kind, const void *data, Py_ssize_t n, Positions *bounds)
{
    return kind == PyUnicode_1BYTE_KIND   ? nfc_scan_1(flags, data, n, bounds)
           : kind == PyUnicode_2BYTE_KIND ? nfc_scan_2(flags, data, n, bounds)
                                          : nfc_scan_4(flags, data, n, bounds);
}

/* Unicode's NFC quick check (UAX #15) of each span in bounds, from the values of the NFC table
 * (compiled._compute_nfc_flags): a flagged character's byte is its combining class's rank << 2 | its
 * NFC_QC (0 yes, 1 maybe, 2 no), so a mark out of canonical order or a character NFC never keeps
 * answers no, and a span of none marked maybe is in NFC. Another table's 1 reads as maybe (every span
 * left to the full check). Keeps in bounds the spans left open (a maybe); returns 1 where one answers
 * no (bounds then undefined), else 0. Runs without the GIL. */
static int
nfc_quick(const uint8_t *flags, int kind, const void *data, Positions *bounds)
{
    Py_ssize_t open = 0;
    for (Py_ssize_t k = 0; 2 * k < bounds->count; k++) {
        Py_ssize_t a = (Py_ssize_t)bounds->at[2 * k], b = (Py_ssize_t)bounds->at[2 * k + 1];
        unsigned last = 0, maybe = 0;
        for (Py_ssize_t i = a; i < b; i++) {
            uint8_t f = flags[PyUnicode_READ(kind, data, i)];
            unsigned rank = f >> 2;
            if ((f & 3) == 2 || (rank && last > rank))
                return 1;
            maybe |= f & 1;
            last = rank;
        }
        if (maybe) {
            bounds->at[open++] = a;
            bounds->at[open++] = b;
        }
    }
    bounds->count = open;
    return 0;
}

/* ------------------------------------------------------------------------------- Front */

/* front(encoder, owner, method, leads, split_leads, max_length, flags, ordinary=None, full=None,
 * stable=None, short_max=0, repeat_max=0) -> a callable that is Tokenizer.encode for the common call, in one C
 * call: f(text), or with the options add_special_tokens=False and split_special_tokens=True/False, text a str
 * of at most max_length characters. An added token can only start at one of leads (the characters the
 * added tokens start with, at most FRONT_LEADS; split_leads: those of the tokens still matched under
 * split_special_tokens; None: more than that). Where the vocabulary normalises (flags: a function that
 * returns its nfc_spans table, called on the first text that is not ASCII; None where it does not),
 * text must hold no character the form may change, or stable(span) (where given) must say the form
 * leaves each span nfc_spans finds with the flags as it is (asked per span from C, not of the whole
 * text: Python's check of a whole text is slow on Indic text, and a call through is_nfc cost more than
 * a short text's encode).
 * - On the compiled encoder (encoder given): a text holding none of the leads gets its ids straight from
 *   the encoder.
 * - On another engine's binding (ordinary and full given; fastokens' Tokenizer): ordinary(text).ids where
 *   the text holds none of the leads (its encode_ordinary), else full(text, False, split).ids (its encode,
 *   which matches added tokens itself). What it raises sends the call to method (which recovers), an
 *   interrupt excepted. Given an encoder too (the compiled encoder over the same vocabulary), a text
 *   of at most short_max characters holding none of the leads goes to the encoder instead: on short
 *   text it is faster than the binding, whose call costs more than the encode itself -- where its
 *   words are ones it has seen (kept across calls). A first-sight word is merged pair by pair, where
 *   the binding's merges are about as fast or faster: while a quarter of the recent such calls
 *   (SHORT_SLOW) merged MERGES_SLOW pieces or more, those texts go to the binding, and one in
 *   SHORT_PROBE still to the encoder, which keeps the record current. A text the record would send
 *   to the binding, or a longer one of at most repeat_max characters that is not ASCII, goes to the
 *   encoder where the front was asked about it before (a hash of its characters among the last
 *   ~SEEN_SLOTS such texts): the words of a text that recurs are ones the encoder keeps once it has
 *   merged them (repeated chat strings of 129-512 characters, not ASCII: 1.1-1.5x the binding). Such
 *   a text asked about the first time goes to the binding (the encoder would merge its words), and
 *   so does ASCII past short_max: on it the binding costs less per character even where the encoder
 *   keeps every piece (code: 0.6-0.9x at 256-512 characters). Where the recurring texts hold more
 *   pieces than the encoder's tables keep (a thousand names in many scripts), it merges them again
 *   each time and the binding is faster: while a quarter of the recent repeats the encoder took
 *   before (SHORT_SLOW) merged MERGES_SLOW pieces or more, such repeats go to the binding too, one
 *   in SHORT_PROBE still to the encoder (a first repeat always goes to the encoder, to learn it).
 * Any other call, and a text the encoder declines, is method(owner, ...) (owner: a weak reference to
 * the tokenizer, so the tokenizer that holds this callable frees as before). */
#define FRONT_LEADS 4
#define MERGES_SLOW 2
#define SHORT_SLOW 256 /* of 1024 */
#define SHORT_PROBE 32 /* (8 cost first-sight non-ASCII names 9-16% against the binding alone; 32: 0-9%) */
#define SEEN_SLOTS 4096 /* hashes (32 KB) */
#define SEEN_ASKED 1      /* (a slot's low bits: a hash is stored with this bit set, 0 is empty) */
#define SEEN_TAKEN 2      /* (and this one once the encoder took a repeat of the text) */
typedef struct {
    Py_UCS4 chars[FRONT_LEADS];
    int n; /* -1: more than FRONT_LEADS (an added token may start anywhere) */
} Leads;

/* stable's answer for a short span, kept by the front: the same few syllables recur across texts (a
 * consonant and a vowel sign that may compose), and each answer is a Python call (~0.3-0.5 us). */
#define SPAN_MEMO 512
#define SPAN_MEMO_CHARS 6
typedef struct {
    Py_UCS4 chars[SPAN_MEMO_CHARS];
    uint8_t n; /* 0: empty */
    uint8_t stable;
} SpanMemo;

/* How the encoder does on a kind of text the front may send it beside another engine: while a quarter of
 * its recent such calls (SHORT_SLOW) merged MERGES_SLOW pieces or more, one in SHORT_PROBE still goes to
 * it, the rest to the binding. */
typedef struct {
    int slow;       /* of those calls, the share (x 1024, a moving average over ~16) that merged much */
    unsigned probe; /* such texts counted while slow is past SHORT_SLOW */
} Record;

/* Whether the encoder takes the next text of r's kind */
static inline int
record_takes(Record *r)
{
    return r->slow < SHORT_SLOW || ++r->probe % SHORT_PROBE == 0;
}

/* Notes a call of r's kind the encoder took (merged: the pieces it merged) */
static inline void
record_note(Record *r, size_t merged)
{
    r->slow += (merged >= MERGES_SLOW ? 1024 / 16 : 0) - r->slow / 16;
}

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *encoder; /* the capsule (held), or None */
    Encoder *e;        /* NULL over another engine */
    PyObject *owner;   /* weakref to the tokenizer */
    PyObject *method;  /* Tokenizer.encode, unbound */
    Leads leads[2];    /* [split_special_tokens] */
    Py_ssize_t max_length;
    Py_ssize_t short_max; /* with both an encoder and another engine: the texts the encoder takes */
    Record shorts;        /* those texts */
    Py_ssize_t repeat_max; /* with both: the texts a repeat of which goes to the encoder */
    uint64_t *seen;        /* SEEN_SLOTS of a text's hash | SEEN_TAKEN (allocated on first use), or NULL */
    Record repeats;        /* repeats the encoder took before */
    PyObject *flags;    /* bytes of N_CODEPOINTS once read, or NULL */
    uint8_t *coarse;    /* a bit per 64 code points, set where flags marks one of them (read with flags) */
    PyObject *flags_of; /* what returns them, or NULL where the vocabulary does not normalise */
    PyObject *stable;   /* whether the form leaves a span around flagged characters as it is, or NULL */
    SpanMemo *memo;     /* stable's answers for short spans (SPAN_MEMO slots, read with flags), or NULL */
    PyObject *ordinary; /* another engine's encode_ordinary and encode, or NULL */
    PyObject *full;
} Front;

static PyObject *ids_name; /* "ids", interned */

/* split_special_tokens (0 or 1) where the call's keywords are ones the fast path takes (add_special_tokens
 * False, split_special_tokens True or False), else -1. */
static int
front_split(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    int split = 0;
    if (kwnames == NULL)
        return 0;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k), *value = args[nargs + k];
        if (!PyUnicode_CompareWithASCIIString(name, "add_special_tokens") && value == Py_False)
            continue;
        if (!PyUnicode_CompareWithASCIIString(name, "split_special_tokens") && (value == Py_False || value == Py_True)) {
            split = value == Py_True;
            continue;
        }
        return -1;
    }
    return split;
}

/* 1 where text holds one of leads, 0 where not, -1 with an exception. */
static int
holds_lead(const Leads *leads, PyObject *text, Py_ssize_t n)
{
    if (leads->n < 0)
        return 1;
    for (int k = 0; k < leads->n; k++) {
        Py_ssize_t at = PyUnicode_FindChar(text, leads->chars[k], 0, n, 1);
        if (at != -1)
            return at == -2 ? -1 : 1;
    }
    return 0;
}

#define COARSE_BYTES (N_CODEPOINTS / 64 / 8)
#define COARSE_HIT(coarse, c) ((coarse)[(c) >> 9] & (1u << (((c) >> 6) & 7)))

/* unflagged for one kind of str, the table read only for characters in a block of 64 that holds a
 * flagged one where coarse is given (a bit per block, small enough to stay in the first-level cache;
 * the table is a megabyte, and most scripts' blocks hold no flagged character). */
#define UNFLAGGED_SCAN(NAME, CHAR)                                                                 \
    static int NAME(const uint8_t *flags, const uint8_t *coarse, const CHAR *chars, Py_ssize_t n)  \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++)                                                         \
            if ((coarse == NULL || COARSE_HIT(coarse, chars[i])) && flags[chars[i]])               \
                return 0;                                                                          \
        return 1;                                                                                  \
    }
UNFLAGGED_SCAN(unflagged_1, Py_UCS1)
UNFLAGGED_SCAN(unflagged_2, Py_UCS2)
UNFLAGGED_SCAN(unflagged_4, Py_UCS4)

/* Whether flags (one byte per code point) marks no character of text; coarse: its blocks' summary
 * (front_stable builds it with the flags), or NULL. */
static int
unflagged(const uint8_t *flags, const uint8_t *coarse, PyObject *text)
{
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    return kind == PyUnicode_1BYTE_KIND   ? unflagged_1(flags, coarse, data, n)
           : kind == PyUnicode_2BYTE_KIND ? unflagged_2(flags, coarse, data, n)
                                          : unflagged_4(flags, coarse, data, n);
}

/* Whether the form leaves text as it is: no, where the quick check (nfc_quick) of a span nfc_spans
 * finds with the front's flags says no; else whether stable(span) holds for every span it leaves open
 * (the first that fails ends the scan; a span that is the whole text is text itself; a short span's
 * answer is kept in the memo). 1, 0, or -1 with an exception. The text is scanned with the GIL held, as
 * the front's other scans are. */
static int
spans_stable(Front *f, PyObject *text)
{
    const uint8_t *flags = (const uint8_t *)PyBytes_AS_STRING(f->flags);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    Positions bounds = {0};
    int failed = nfc_scan(flags, kind, data, n, &bounds);
    int yes = failed ? -1 : !nfc_quick(flags, kind, data, &bounds);
    if (failed)
        PyErr_NoMemory();
    for (Py_ssize_t k = 0; yes == 1 && 2 * k < bounds.count; k++) {
        Py_ssize_t a = (Py_ssize_t)bounds.at[2 * k], b = (Py_ssize_t)bounds.at[2 * k + 1];
        SpanMemo *slot = NULL;
        if (b - a <= SPAN_MEMO_CHARS) {
            uint64_t h = (uint64_t)(b - a);
            for (Py_ssize_t i = a; i < b; i++)
                h = (h ^ PyUnicode_READ(kind, data, i)) * 0x9E3779B97F4A7C15ull;
            slot = &f->memo[(h >> 32) & (SPAN_MEMO - 1)];
            Py_ssize_t i = a;
            while (i < b && slot->n == b - a && slot->chars[i - a] == PyUnicode_READ(kind, data, i))
                i++;
            if (i == b) {
                yes = slot->stable;
                continue;
            }
        }
        PyObject *span = a == 0 && b == n ? Py_NewRef(text) : PyUnicode_Substring(text, a, b);
        PyObject *answer = span != NULL ? PyObject_CallOneArg(f->stable, span) : NULL;
        Py_XDECREF(span);
        yes = answer != NULL ? PyObject_IsTrue(answer) : -1;
        Py_XDECREF(answer);
        if (slot != NULL && yes >= 0) { /* (kept: the same span gets the same answer) */
            for (Py_ssize_t i = a; i < b; i++)
                slot->chars[i - a] = PyUnicode_READ(kind, data, i);
            slot->n = (uint8_t)(b - a);
            slot->stable = (uint8_t)yes;
        }
    }
    PyMem_RawFree(bounds.at);
    return yes;
}

/* 1 where the vocabulary's form leaves text as it is (or it has none), 0 where it may not, -1 with an
 * exception (the flags read on first need). A text holding a flagged character is asked of stable
 * (where given): most such texts are in the form already (the flags mark every character the form may
 * change, not those it does), and what stable raises only sends the call to the method. */
static int
front_stable(Front *f, PyObject *text)
{
    if (f->flags_of == NULL || PyUnicode_IS_ASCII(text))
        return 1;
    if (f->flags == NULL) {
        PyObject *flags = PyObject_CallNoArgs(f->flags_of);
        if (flags == NULL)
            return -1;
        if (!PyBytes_Check(flags) || PyBytes_GET_SIZE(flags) != N_CODEPOINTS) {
            Py_DECREF(flags);
            PyErr_SetString(PyExc_TypeError, "front: flags() must return bytes of 0x110000");
            return -1;
        }
        uint8_t *coarse = PyMem_Calloc(COARSE_BYTES, 1);
        if (coarse == NULL) {
            Py_DECREF(flags);
            PyErr_NoMemory();
            return -1;
        }
        const uint8_t *marks = (const uint8_t *)PyBytes_AS_STRING(flags);
        for (Py_UCS4 c = 0; c < N_CODEPOINTS; c++)
            if (marks[c])
                coarse[c >> 9] |= (uint8_t)(1u << ((c >> 6) & 7));
        SpanMemo *memo = f->stable != NULL ? PyMem_Calloc(SPAN_MEMO, sizeof(SpanMemo)) : NULL;
        if (f->stable != NULL && memo == NULL) {
            Py_DECREF(flags);
            PyMem_Free(coarse);
            PyErr_NoMemory();
            return -1;
        }
        if (f->flags == NULL) { /* (another thread may have read them while flags_of ran Python code) */
            f->flags = flags;
            f->coarse = coarse;
            f->memo = memo;
        }
        else {
            Py_DECREF(flags);
            PyMem_Free(coarse);
            PyMem_Free(memo);
        }
    }
    if (unflagged((const uint8_t *)PyBytes_AS_STRING(f->flags), f->coarse, text))
        return 1;
    if (f->stable == NULL)
        return 0;
    int yes = spans_stable(f, text);
    if (yes < 0) {
        if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt) || PyErr_ExceptionMatches(PyExc_SystemExit))
            return -1;
        PyErr_Clear();
        return 0;
    }
    return yes;
}

static PyObject *
front_fallback(Front *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    PyObject *owner = PyWeakref_GetObject(f->owner); /* (borrowed) */
    if (owner == NULL)
        return NULL;
    if (owner == Py_None) {
        PyErr_SetString(PyExc_ReferenceError, "the tokenizer this encode belongs to has been freed");
        return NULL;
    }
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t total = nargs + (kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0);
    PyObject *small[8], **stack = small;
    if (total + 1 > 8 && (stack = PyMem_Malloc((size_t)(total + 1) * sizeof(PyObject *))) == NULL)
        return PyErr_NoMemory();
    Py_INCREF(owner);
    stack[0] = owner;
    if (total)
        memcpy(stack + 1, args, (size_t)total * sizeof(PyObject *));
    PyObject *result = PyObject_Vectorcall(f->method, stack, (size_t)(nargs + 1), kwnames);
    Py_DECREF(owner);
    if (stack != small)
        PyMem_Free(stack);
    return result;
}

/* The ids of text from another engine's binding (held: 0 or 1, whether it holds a lead), or NULL: with an
 * exception to raise, or with none where the method should take the call. */
static PyObject *
front_foreign(Front *f, PyObject *text, int held, int split)
{
    PyObject *call[3] = {text, Py_False, split ? Py_True : Py_False};
    PyObject *encoding = held ? PyObject_Vectorcall(f->full, call, 3, NULL) : PyObject_Vectorcall(f->ordinary, call, 1, NULL);
    PyObject *ids = encoding != NULL ? PyObject_GetAttr(encoding, ids_name) : NULL;
    Py_XDECREF(encoding);
    if (ids == NULL && !PyErr_ExceptionMatches(PyExc_KeyboardInterrupt) && !PyErr_ExceptionMatches(PyExc_SystemExit))
        PyErr_Clear(); /* (the method's own path recovers from what the engine raised) */
    return ids;
}

/* Whether the front was asked about text (n characters) before, among the last ~SEEN_SLOTS it was asked
 * about (by a hash of its characters): 0 not (it is now), 1 asked before, 2 asked before and a repeat
 * taken by the encoder since; *slot: its slot, or NULL. */
static int
front_seen(Front *f, PyObject *text, Py_ssize_t n, uint64_t **slot)
{
    *slot = NULL;
    if (f->seen == NULL && (f->seen = PyMem_Calloc(SEEN_SLOTS, sizeof(uint64_t))) == NULL)
        return 0; /* (without the table no text is a repeat) */
    int kind = PyUnicode_KIND(text);
    uint64_t h = (hash_bytes(PyUnicode_DATA(text), (size_t)n * (size_t)kind) ^ (uint64_t)kind);
    h = (h & ~(uint64_t)(SEEN_ASKED | SEEN_TAKEN)) | SEEN_ASKED;
    *slot = &f->seen[(h >> 2) & (SEEN_SLOTS - 1)];
    if ((**slot & ~(uint64_t)SEEN_TAKEN) == h)
        return **slot & SEEN_TAKEN ? 2 : 1;
    **slot = h;
    return 0;
}

static PyObject *
front_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Front *f = (Front *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    int split = nargs == 1 && PyUnicode_CheckExact(args[0]) ? front_split(args, nargs, kwnames) : -1;
    if (split >= 0) {
        PyObject *text = args[0];
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(text) < 0)
            return NULL;
#endif
        Py_ssize_t n = PyUnicode_GET_LENGTH(text);
        int held = n <= f->max_length ? holds_lead(&f->leads[split], text, n) : 1;
        int stable = n <= f->max_length ? front_stable(f, text) : 0;
        if (held < 0 || stable < 0)
            return NULL;
        if (stable && n <= f->max_length) {
            int own = f->ordinary == NULL, chosen = 0;
            if (!own && n <= f->short_max)
                own = chosen = record_takes(&f->shorts);
            int again = 0; /* (a repeat the encoder took before, sent to it now) */
            if (!own && f->e != NULL && !held && n <= f->repeat_max &&
                (n <= f->short_max || !PyUnicode_IS_ASCII(text))) { /* (asked only where it decides) */
                uint64_t *slot;
                int seen = front_seen(f, text, n, &slot);
                if (seen == 1) {
                    own = 1;
                    *slot |= SEEN_TAKEN;
                }
                else if (seen == 2)
                    own = again = record_takes(&f->repeats);
            }
            if (f->e != NULL && !held && own) {
                size_t merged = 0;
                PyObject *ids = encode_object(f->e, text, AS_LIST, &merged);
                if (chosen) /* (with the GIL: encode_object has taken it back) */
                    record_note(&f->shorts, merged);
                if (again)
                    record_note(&f->repeats, merged);
                if (ids != Py_None)
                    return ids;
                Py_DECREF(ids);
            }
            if (f->ordinary != NULL) {
                PyObject *ids = front_foreign(f, text, held, split);
                if (ids != NULL || PyErr_Occurred())
                    return ids;
            }
        }
    }
    return front_fallback(f, args, nargsf, kwnames);
}

static void
front_dealloc(PyObject *self)
{
    Front *f = (Front *)self;
    Py_XDECREF(f->encoder);
    Py_XDECREF(f->owner);
    Py_XDECREF(f->method);
    Py_XDECREF(f->flags);
    PyMem_Free(f->coarse);
    PyMem_Free(f->memo);
    PyMem_Free(f->seen);
    Py_XDECREF(f->flags_of);
    Py_XDECREF(f->stable);
    Py_XDECREF(f->ordinary);
    Py_XDECREF(f->full);
    PyObject_Free(self);
}

/* The tokenizer's encode as a bound method (None once it is freed): what inspect.signature and help
 * read through __wrapped__. */
static PyObject *
front_wrapped(PyObject *self, void *closure)
{
    Front *f = (Front *)self;
    PyObject *owner = PyWeakref_GetObject(f->owner);
    if (owner == NULL)
        return NULL;
    if (owner == Py_None)
        Py_RETURN_NONE;
    return PyMethod_New(f->method, owner);
}

static PyObject *
front_attribute(PyObject *self, void *name)
{
    return PyObject_GetAttrString(((Front *)self)->method, (const char *)name);
}

/* How the encoder does on the short texts it is sent beside another engine (closure NULL), or on the
 * repeats it took before: the share (of 1024) of the recent ones that merged MERGES_SLOW pieces or more,
 * and whether such a text now goes to it. */
static PyObject *
front_route(PyObject *self, void *closure)
{
    Front *f = (Front *)self;
    const Record *r = closure == NULL ? &f->shorts : &f->repeats;
    return Py_BuildValue("(iO)", r->slow, r->slow < SHORT_SLOW ? Py_True : Py_False);
}

static PyGetSetDef front_getset[] = {
    {"__wrapped__", front_wrapped, NULL, "the tokenizer's encode method", NULL},
    {"short_route", front_route, NULL, "(the share of 1024 that merged much, whether the encoder takes)", NULL},
    {"repeat_route", front_route, NULL,
     "repeats the encoder took before: (the share of 1024 that merged much, whether it takes them)", "repeats"},
    {"__doc__", front_attribute, NULL, NULL, "__doc__"},
    {"__name__", front_attribute, NULL, NULL, "__name__"},
    {"__qualname__", front_attribute, NULL, NULL, "__qualname__"},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject FrontType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "toklane._bpe.Front",
    .tp_basicsize = sizeof(Front),
    .tp_dealloc = front_dealloc,
    .tp_vectorcall_offset = offsetof(Front, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_getset = front_getset,
};

/* leads (a str of at most FRONT_LEADS characters, or None: more) into *out; 0, or -1 with TypeError. */
static int
leads_of(PyObject *leads, Leads *out)
{
    if (leads == Py_None) {
        out->n = -1;
        return 0;
    }
    if (!PyUnicode_Check(leads) || PyUnicode_GET_LENGTH(leads) > FRONT_LEADS) {
        PyErr_SetString(PyExc_TypeError, "front: leads must be a str of at most 4 characters, or None");
        return -1;
    }
    out->n = (int)PyUnicode_GET_LENGTH(leads);
    for (int k = 0; k < out->n; k++)
        out->chars[k] = PyUnicode_READ_CHAR(leads, k);
    return 0;
}

static PyObject *
bpe_front(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *ordinary = nargs > 7 && args[7] != Py_None ? args[7] : NULL;
    PyObject *full = nargs > 8 && args[8] != Py_None ? args[8] : NULL;
    PyObject *stable = nargs > 9 && args[9] != Py_None ? args[9] : NULL;
    Py_ssize_t short_max = nargs > 10 ? PyLong_AsSsize_t(args[10]) : 0;
    if (short_max == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t repeat_max = nargs > 11 ? PyLong_AsSsize_t(args[11]) : 0;
    if (repeat_max == -1 && PyErr_Occurred())
        return NULL;
    if (nargs < 7 || nargs > 12 || !PyWeakref_CheckRef(args[1]) || !PyCallable_Check(args[2]) ||
        (stable != NULL && !PyCallable_Check(stable)) ||
        (args[6] != Py_None && !PyCallable_Check(args[6])) || (ordinary != NULL && !PyCallable_Check(ordinary)) ||
        (full != NULL && !PyCallable_Check(full)) || (ordinary != NULL) != (full != NULL) ||
        (ordinary == NULL && args[0] == Py_None)) {
        PyErr_SetString(PyExc_TypeError, "front(encoder, owner: weakref, method, leads, split_leads, max_length: int, "
                                         "flags: a function returning bytes of 0x110000 | None, ordinary=None, "
                                         "full=None, stable=None, short_max=0, repeat_max=0): an encoder, both of "
                                         "ordinary and full, or both");
        return NULL;
    }
    Leads leads[2];
    if (leads_of(args[3], &leads[0]) < 0 || leads_of(args[4], &leads[1]) < 0)
        return NULL;
    if (ids_name == NULL && (ids_name = PyUnicode_InternFromString("ids")) == NULL)
        return NULL;
    Encoder *e = args[0] == Py_None ? NULL : PyCapsule_GetPointer(args[0], "toklane._bpe.Encoder");
    Py_ssize_t max_length = PyLong_AsSsize_t(args[5]);
    if ((e == NULL && args[0] != Py_None) || (max_length == -1 && PyErr_Occurred()))
        return NULL;
    if (PyType_Ready(&FrontType) < 0)
        return NULL;
    Front *f = PyObject_New(Front, &FrontType);
    if (f == NULL)
        return NULL;
    f->vectorcall = front_call;
    f->encoder = Py_NewRef(args[0]);
    f->e = e;
    f->owner = Py_NewRef(args[1]);
    f->method = Py_NewRef(args[2]);
    f->leads[0] = leads[0];
    f->leads[1] = leads[1];
    f->max_length = max_length;
    f->short_max = short_max;
    f->shorts = (Record){0, 0};
    f->repeat_max = repeat_max;
    f->seen = NULL;
    f->repeats = (Record){0, 0};
    f->flags = NULL;
    f->coarse = NULL;
    f->memo = NULL;
    f->flags_of = args[6] == Py_None ? NULL : Py_NewRef(args[6]);
    f->stable = stable != NULL ? Py_NewRef(stable) : NULL;
    f->ordinary = ordinary != NULL ? Py_NewRef(ordinary) : NULL;
    f->full = full != NULL ? Py_NewRef(full) : NULL;
    return (PyObject *)f;
}

/* A part of join_ids: bytes of native uint32 ids (id_ints_join's reader). */
static Py_ssize_t
bytes_of_ids(PyObject *part, Py_buffer *view)
{
    if (!PyBytes_CheckExact(part) || PyBytes_GET_SIZE(part) % sizeof(uint32_t)) {
        PyErr_SetString(PyExc_TypeError, "join_ids: each array must be bytes of 4-byte ids");
        return -1;
    }
    if (PyObject_GetBuffer(part, view, PyBUF_SIMPLE) < 0)
        return -1;
    return view->len / (Py_ssize_t)sizeof(uint32_t);
}

/* join_ids(encoder, arrays) -> one list of the ids in arrays (bytes of native uint32 ids, as
 * encode(..., AS_ARRAY) returns them), in order: the parts of a long text encoded on several threads
 * joined without a list per part. */
static PyObject *
bpe_join_ids(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyList_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "join_ids(encoder, arrays: list[bytes])");
        return NULL;
    }
    Encoder *e = PyCapsule_GetPointer(args[0], "toklane._bpe.Encoder");
    if (e == NULL)
        return NULL;
    return id_ints_join(&e->ids, args[1], bytes_of_ids, "join_ids: the arrays changed");
}

/* nfc_spans(flags, text, quick=False) -> [(start, end), ...]: the spans of text NFC may change, for a
 * table of one byte per code point (0x110000), non-zero where NFC may change or reorder a character, or
 * join it to the one before (a mark, a character NFC replaces, the second of a composition). Every other
 * character starts a segment NFC leaves apart, so each span runs from the last such character before a
 * flagged one to the next after it; the spans are merged and in order. quick: only the spans NFC's quick
 * check (nfc_quick) leaves open, or None where it says the text is not in NFC. A long text is scanned
 * with the GIL released (a str is immutable and the caller holds it). */
static PyObject *
bpe_nfc_spans(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 2 || nargs > 3 || !PyBytes_Check(args[0]) || PyBytes_GET_SIZE(args[0]) != N_CODEPOINTS ||
        !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "nfc_spans(flags: bytes of 0x110000, text: str, quick: bool = False)");
        return NULL;
    }
    const uint8_t *flags = (const uint8_t *)PyBytes_AS_STRING(args[0]);
    PyObject *text = args[1];
    int quick = nargs > 2 ? PyObject_IsTrue(args[2]) : 0;
    if (quick < 0)
        return NULL;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0)
        return NULL;
#endif
    if (PyUnicode_IS_ASCII(text))
        return PyList_New(0);
    const void *data = PyUnicode_DATA(text);
    int kind = PyUnicode_KIND(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Positions bounds = {0};
    PyThreadState *released = n >= GIL_FREE_SCAN ? PyEval_SaveThread() : NULL;
    int failed = nfc_scan(flags, kind, data, n, &bounds);
    int not_nfc = !failed && quick && nfc_quick(flags, kind, data, &bounds);
    if (released != NULL)
        PyEval_RestoreThread(released);
    if (failed) {
        PyMem_RawFree(bounds.at);
        return PyErr_NoMemory();
    }
    if (not_nfc) {
        PyMem_RawFree(bounds.at);
        Py_RETURN_NONE;
    }
    PyObject *spans = PyList_New(bounds.count / 2);
    for (Py_ssize_t k = 0; spans != NULL && 2 * k < bounds.count; k++) {
        PyObject *span = Py_BuildValue("(LL)", (long long)bounds.at[2 * k], (long long)bounds.at[2 * k + 1]);
        if (span == NULL)
            Py_CLEAR(spans);
        else
            PyList_SET_ITEM(spans, k, span);
    }
    PyMem_RawFree(bounds.at);
    return spans;
}

/* flagged(flags, texts, longest) -> the indices of the texts (a list of str) of longest characters or
 * more or holding a character flags marks (flags: bytes of 0x110000, or None: none marked), in order:
 * the texts of a batch that go their own way (toklane.tokenizer.engines.fastokens: NFC may change them,
 * or they are long enough to be cut). TypeError naming the first item that is not a str. */
static PyObject *
bpe_flagged(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !(args[0] == Py_None || (PyBytes_Check(args[0]) && PyBytes_GET_SIZE(args[0]) == N_CODEPOINTS)) ||
        !PyList_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "flagged(flags: bytes of 0x110000 | None, texts: list[str], longest: int)");
        return NULL;
    }
    Py_ssize_t longest = PyLong_AsSsize_t(args[2]);
    if (longest == -1 && PyErr_Occurred())
        return NULL;
    const uint8_t *flags = args[0] == Py_None ? NULL : (const uint8_t *)PyBytes_AS_STRING(args[0]);
    PyObject *found = PyList_New(0);
    /* (the list is read by index each time: appending may run the garbage collector) */
    for (Py_ssize_t k = 0; found != NULL && k < PyList_GET_SIZE(args[1]); k++) {
        PyObject *text = PyList_GET_ITEM(args[1], k);
        if (!PyUnicode_Check(text)) {
            PyErr_Format(PyExc_TypeError, "flagged: item %zd is %.100s, not str", k, Py_TYPE(text)->tp_name);
            Py_CLEAR(found);
            break;
        }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(text) < 0) {
            Py_CLEAR(found);
            break;
        }
#endif
        Py_ssize_t n = PyUnicode_GET_LENGTH(text);
        if (n < longest && (flags == NULL || PyUnicode_IS_ASCII(text) || unflagged(flags, NULL, text)))
            continue;
        PyObject *index = PyLong_FromSsize_t(k);
        if (index == NULL || PyList_Append(found, index) < 0)
            Py_CLEAR(found);
        Py_XDECREF(index);
    }
    return found;
}

/* ------------------------------------------------------------------ flag_scan */

/* The prefix hash of three adjacent code points (toklane.tokenizer.quickranks._prefix_hashes). */
#define PREFIX_BITS 21
#define PREFIX_HASH(a, b, c) ((((uint32_t)(a) << 14) ^ ((uint32_t)(b) << 7) ^ (uint32_t)(c)) & ((1u << PREFIX_BITS) - 1))

/* One pass of flag_scan over one kind of str: 0, -1 (no memory) or 1 (a lone surrogate). */
#define FLAG_SCAN(NAME, CHAR)                                                                      \
    static int NAME(const uint8_t *flags, const uint8_t *prefixes, const CHAR *chars, Py_ssize_t n, \
                    Positions *hits, Positions *shorts, Positions *candidates)                     \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            Py_UCS4 c = chars[i];                                                                  \
            if (sizeof(CHAR) > 1 && c >= 0xD800 && c < 0xE000)                                     \
                return 1;                                                                          \
            uint8_t f = flags[c];                                                                  \
            if (f) {                                                                               \
                if ((f & 1) && positions_add(hits, i))                                             \
                    return -1;                                                                     \
                if ((f & 2) && positions_add(shorts, i))                                           \
                    return -1;                                                                     \
            }                                                                                      \
            if (prefixes != NULL && i + 2 < n && prefixes[PREFIX_HASH(c, chars[i + 1], chars[i + 2])] && \
                positions_add(candidates, i))                                                      \
                return -1;                                                                         \
        }                                                                                          \
        return 0;                                                                                  \
    }
FLAG_SCAN(flag_scan_1, Py_UCS1)
FLAG_SCAN(flag_scan_2, Py_UCS2)
FLAG_SCAN(flag_scan_4, Py_UCS4)

static PyObject *
positions_bytes(Positions *p)
{
    return PyBytes_FromStringAndSize((const char *)p->at, p->count * (Py_ssize_t)sizeof(int64_t));
}

/* flag_scan(flags, prefixes, text) -> (hits, shorts, candidates, windows), or None for a text with
 * a lone surrogate. flags: bytes of 0x110000; prefixes: bytes of 1 << 21, or None. The positions of
 * text whose flag has bit 1 (hits) or bit 2 (shorts), and those whose three characters' prefix hash
 * is set in prefixes (candidates), each as bytes of native int64; windows: the four code points from
 * each candidate (0 past the end) as bytes of native uint32. The scan runs without the GIL. */
static PyObject *
bpe_flag_scan(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyBytes_Check(args[0]) || PyBytes_GET_SIZE(args[0]) != N_CODEPOINTS ||
        !(args[1] == Py_None || (PyBytes_Check(args[1]) && PyBytes_GET_SIZE(args[1]) == (1 << PREFIX_BITS))) ||
        !PyUnicode_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError,
                        "flag_scan(flags: bytes of 0x110000, prefixes: bytes of 1 << 21 or None, text: str)");
        return NULL;
    }
    const uint8_t *flags = (const uint8_t *)PyBytes_AS_STRING(args[0]);
    const uint8_t *prefixes = args[1] == Py_None ? NULL : (const uint8_t *)PyBytes_AS_STRING(args[1]);
    PyObject *text = args[2];
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0)
        return NULL;
#endif
    const void *data = PyUnicode_DATA(text);
    int kind = PyUnicode_KIND(text), got;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Positions hits = {0}, shorts = {0}, candidates = {0};
    uint32_t *windows = NULL;
    Py_BEGIN_ALLOW_THREADS
    if (kind == PyUnicode_1BYTE_KIND)
        got = flag_scan_1(flags, prefixes, data, n, &hits, &shorts, &candidates);
    else if (kind == PyUnicode_2BYTE_KIND)
        got = flag_scan_2(flags, prefixes, data, n, &hits, &shorts, &candidates);
    else
        got = flag_scan_4(flags, prefixes, data, n, &hits, &shorts, &candidates);
    if (got == 0 && candidates.count) {
        windows = PyMem_RawMalloc(4 * candidates.count * sizeof(uint32_t));
        if (windows == NULL)
            got = -1;
        for (Py_ssize_t k = 0; windows != NULL && k < candidates.count; k++)
            for (Py_ssize_t j = 0; j < 4; j++) {
                Py_ssize_t at = (Py_ssize_t)candidates.at[k] + j;
                windows[4 * k + j] = at < n ? PyUnicode_READ(kind, data, at) : 0;
            }
    }
    Py_END_ALLOW_THREADS
    PyObject *result = NULL;
    if (got < 0)
        PyErr_NoMemory();
    else if (got > 0)
        result = Py_NewRef(Py_None);
    else {
        PyObject *parts[4] = {
            positions_bytes(&hits),
            positions_bytes(&shorts),
            positions_bytes(&candidates),
            PyBytes_FromStringAndSize((const char *)windows, 4 * candidates.count * (Py_ssize_t)sizeof(uint32_t)),
        };
        if (parts[0] && parts[1] && parts[2] && parts[3])
            result = PyTuple_Pack(4, parts[0], parts[1], parts[2], parts[3]);
        for (int k = 0; k < 4; k++)
            Py_XDECREF(parts[k]);
    }
    PyMem_RawFree(hits.at);
    PyMem_RawFree(shorts.at);
    PyMem_RawFree(candidates.at);
    PyMem_RawFree(windows);
    return result;
}

/* GPT-2's byte-level alphabet read back: byte_of[c] is the byte character c stands for, -1 where c is
 * not one of the 256 (toklane.tokenizer.bytelevel: printable bytes stand for themselves, the others
 * for 256, 257, ... in byte order; the last is U+0143). */
#define BYTE_LEVEL_CHARS 0x144
static void
byte_level_table(int16_t byte_of[BYTE_LEVEL_CHARS])
{
    for (int c = 0; c < BYTE_LEVEL_CHARS; c++)
        byte_of[c] = -1;
    int shifted = 0;
    for (int b = 0; b < 256; b++) {
        int printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
        byte_of[printable ? b : 256 + shifted++] = (int16_t)b;
    }
}

/* The bytes a byte-level token string spells (a new bytes object), Py_None (a new reference) where a
 * character is outside the alphabet, NULL on an error. */
static PyObject *
byte_level_bytes(const int16_t byte_of[BYTE_LEVEL_CHARS], PyObject *token)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(token);
    int kind = PyUnicode_KIND(token);
    const void *data = PyUnicode_DATA(token);
    PyObject *out = PyBytes_FromStringAndSize(NULL, n);
    if (out == NULL)
        return NULL;
    char *b = PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c >= BYTE_LEVEL_CHARS || byte_of[c] < 0) {
            Py_DECREF(out);
            return Py_NewRef(Py_None);
        }
        b[i] = (char)byte_of[c];
    }
    return out;
}

/* The byte length a merge part spells (0 where it is not a byte-level string). */
static uint32_t
byte_level_size(const int16_t byte_of[BYTE_LEVEL_CHARS], PyObject *part)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(part);
    int kind = PyUnicode_KIND(part);
    const void *data = PyUnicode_DATA(part);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c >= BYTE_LEVEL_CHARS || byte_of[c] < 0)
            return 0;
    }
    return (uint32_t)n;
}

/* The byte-level tokens of a vocabulary by their bytes (the merges replay's look-ups, made without a
 * Python object per merge): each token's bytes (held by the ranks dict) and id (-1 where the id is not
 * an int, as the replay reads it). */
typedef struct {
    const uint8_t *bytes;
    size_t size;
    long id;
} Spelled;

typedef struct {
    Spelled *items;
    size_t n, cap;
    uint32_t *slots; /* index + 1 into items; 0: empty */
    uint64_t mask;
} SpelledTable;

static int
spelled_add(SpelledTable *t, PyObject *spelled, PyObject *id)
{
    if (t->n == t->cap) {
        size_t cap = t->cap * 2 + 1024;
        Spelled *items = realloc(t->items, cap * sizeof(Spelled));
        if (items == NULL)
            return -1;
        t->items = items;
        t->cap = cap;
    }
    long v = PyLong_Check(id) ? PyLong_AsLong(id) : -1; /* (ids were read as longs already: no overflow) */
    t->items[t->n++] = (Spelled){(const uint8_t *)PyBytes_AS_STRING(spelled), (size_t)PyBytes_GET_SIZE(spelled), v};
    return 0;
}

static int
spelled_index(SpelledTable *t)
{
    uint64_t slots = 1024;
    while (slots < 2 * (uint64_t)t->n)
        slots *= 2;
    if ((t->slots = calloc(slots, sizeof(uint32_t))) == NULL)
        return -1;
    t->mask = slots - 1;
    for (size_t k = 0; k < t->n; k++) {
        uint64_t i = hash_bytes(t->items[k].bytes, t->items[k].size) & t->mask;
        while (t->slots[i])
            i = (i + 1) & t->mask;
        t->slots[i] = (uint32_t)(k + 1);
    }
    return 0;
}

static const Spelled *
spelled_find(const SpelledTable *t, const uint8_t *p, size_t n)
{
    for (uint64_t i = hash_bytes(p, n) & t->mask; t->slots[i]; i = (i + 1) & t->mask) {
        const Spelled *s = &t->items[t->slots[i] - 1];
        if (s->size == n && same_bytes(s->bytes, p, n))
            return s;
    }
    return NULL;
}

/* Appends the bytes a byte-level string spells to buf at *at and returns 1; 0 where a character is
 * outside the alphabet. Where space is given, the first ' ' is no byte but the split between a merge's
 * two parts: *space (-1 before) gets where it fell, in bytes. */
static int
spell_into(const int16_t byte_of[BYTE_LEVEL_CHARS], PyObject *part, uint8_t *buf, size_t *at, Py_ssize_t *space)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(part);
    int kind = PyUnicode_KIND(part);
    const void *data = PyUnicode_DATA(part);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c == ' ' && space != NULL && *space < 0)
            *space = (Py_ssize_t)*at;
        else if (c >= BYTE_LEVEL_CHARS || byte_of[c] < 0)
            return 0;
        else
            buf[(*at)++] = (uint8_t)byte_of[c];
    }
    return 1;
}

/* A merge ("a b" or [a, b]) read by its parts' bytes: 0 with *i its result's id (-1 where it is not
 * two tokens joined into a token) and *left_size its left part's size in bytes; 2 where a part is not a
 * byte-level string or the merge has another shape (the caller reads it the object way); -1 out of
 * memory. */
static int
merge_by_bytes(const int16_t byte_of[BYTE_LEVEL_CHARS], const SpelledTable *t, PyObject *merge, uint8_t **buf,
               size_t *cap, long *i, uint32_t *left_size)
{
    PyObject *a = merge, *b = NULL;
    if (PyList_Check(merge)) {
        if (PyList_GET_SIZE(merge) != 2 || !PyUnicode_Check(PyList_GET_ITEM(merge, 0)) ||
            !PyUnicode_Check(PyList_GET_ITEM(merge, 1)))
            return 2;
        a = PyList_GET_ITEM(merge, 0);
        b = PyList_GET_ITEM(merge, 1);
    }
    else if (!PyUnicode_Check(merge))
        return 2;
    size_t need = (size_t)PyUnicode_GET_LENGTH(a) + (b != NULL ? (size_t)PyUnicode_GET_LENGTH(b) : 0);
    if (need > *cap) {
        uint8_t *grown = realloc(*buf, need);
        if (grown == NULL)
            return -1;
        *buf = grown;
        *cap = need;
    }
    size_t at = 0;
    Py_ssize_t space = b != NULL ? 0 : -1;
    if (!spell_into(byte_of, a, *buf, &at, b != NULL ? NULL : &space))
        return 2;
    if (b != NULL) {
        space = (Py_ssize_t)at;
        if (!spell_into(byte_of, b, *buf, &at, NULL))
            return 2;
    }
    if (space < 0)
        return 2; /* (no space: the object way names the failure) */
    const Spelled *made = spelled_find(t, *buf, at);
    *i = made != NULL && spelled_find(t, *buf, (size_t)space) != NULL &&
                 spelled_find(t, *buf + space, at - (size_t)space) != NULL
             ? made->id
             : -1;
    *left_size = (uint32_t)space;
    return 0;
}

/* replay(vocab, merges) -> (ranks, left) or (None, what, detail): toklane.tokenizer.deepseek_v4.replay's
 * two passes (which holds the contract, the option checks and the messages; its Python body is the
 * reference where this module is not built). ranks: bytes -> id of each byte-level token of vocab (a
 * dict str -> non-negative int); left: native uint32 per id, the byte length of the left part of the
 * merge that makes it. Failures: ("same-bytes", token) two tokens spell the same bytes; ("merge", k)
 * merge k is not "a b" (or [a, b]) of two tokens whose joined token's id exceeds the last merge's;
 * ("counts", None) the vocabulary is not 256 bytes plus one token per merge. */
static PyObject *
bpe_replay(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyDict_Check(args[0]) || !PyList_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "replay(vocab: dict, merges: list)");
        return NULL;
    }
    PyObject *vocab = args[0], *merges = args[1];
    int16_t byte_of[BYTE_LEVEL_CHARS];
    byte_level_table(byte_of);
    PyObject *ranks = PyDict_New(), *left = NULL, *failed = NULL, *result = NULL;
    SpelledTable table = {0};
    uint8_t *buf = NULL;
    size_t cap = 0;
    if (ranks == NULL)
        return NULL;
    long top = 0;
    Py_ssize_t pos = 0, singles = 0;
    PyObject *token, *id;
    while (PyDict_Next(vocab, &pos, &token, &id)) {
        if (PyLong_Check(id)) {
            long v = PyLong_AsLong(id);
            if (v == -1 && PyErr_Occurred())
                goto error;
            if (v > top)
                top = v;
        }
        if (!PyUnicode_Check(token))
            continue;
        PyObject *spelled = byte_level_bytes(byte_of, token);
        if (spelled == NULL)
            goto error;
        if (spelled == Py_None) {
            Py_DECREF(spelled);
            continue;
        }
        int seen = PyDict_Contains(ranks, spelled);
        if (seen == 0)
            seen = PyDict_SetItem(ranks, spelled, id) < 0 || spelled_add(&table, spelled, id) < 0 ? -1 : 0;
        else if (seen == 1)
            failed = Py_BuildValue("(OsO)", Py_None, "same-bytes", token);
        singles += PyBytes_GET_SIZE(spelled) == 1;
        Py_DECREF(spelled);
        if (seen < 0)
            goto error;
        if (failed != NULL)
            goto done;
    }
    if (top >= (long)UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "replay: a token id past 2**32");
        goto error;
    }
    left = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(top + 1) * (Py_ssize_t)sizeof(uint32_t));
    if (left == NULL)
        goto error;
    uint32_t *split = (uint32_t *)PyByteArray_AS_STRING(left);
    memset(split, 0, (size_t)(top + 1) * sizeof(uint32_t));
    long last = -1;
    Py_ssize_t n_merges = PyList_GET_SIZE(merges);
    if (spelled_index(&table) < 0) {
        PyErr_NoMemory();
        goto error;
    }
    for (Py_ssize_t k = 0; k < n_merges; k++) {
        PyObject *merge = PyList_GET_ITEM(merges, k), *a = NULL, *b = NULL;
        long by_bytes = -1;
        uint32_t left_size = 0;
        int way = merge_by_bytes(byte_of, &table, merge, &buf, &cap, &by_bytes, &left_size);
        if (way < 0) {
            PyErr_NoMemory();
            goto error;
        }
        if (way == 0) { /* (both parts byte-level strings: read by their bytes) */
            if (by_bytes >= 0)
                split[by_bytes] = left_size;
            if (by_bytes < 0 || by_bytes <= last) {
                failed = Py_BuildValue("(Osn)", Py_None, "merge", k);
                goto done;
            }
            last = by_bytes;
            continue;
        }
        if (PyUnicode_Check(merge)) {
            Py_ssize_t at = PyUnicode_FindChar(merge, ' ', 0, PyUnicode_GET_LENGTH(merge), 1);
            if (at == -2)
                goto error;
            if (at >= 0) {
                a = PyUnicode_Substring(merge, 0, at);
                b = a == NULL ? NULL : PyUnicode_Substring(merge, at + 1, PyUnicode_GET_LENGTH(merge));
                if (b == NULL) {
                    Py_XDECREF(a);
                    goto error;
                }
            }
        } else if (PyList_Check(merge) && PyList_GET_SIZE(merge) == 2 && PyUnicode_Check(PyList_GET_ITEM(merge, 0)) &&
                   PyUnicode_Check(PyList_GET_ITEM(merge, 1))) {
            a = Py_NewRef(PyList_GET_ITEM(merge, 0));
            b = Py_NewRef(PyList_GET_ITEM(merge, 1));
        }
        long i = -1;
        if (a != NULL) {
            PyObject *joined = PyUnicode_Concat(a, b);
            PyObject *made = joined == NULL ? NULL : PyDict_GetItemWithError(vocab, joined);
            Py_XDECREF(joined);
            int known = made == NULL ? -1 : PyDict_Contains(vocab, a);
            if (known == 1)
                known = PyDict_Contains(vocab, b);
            if (made != NULL && known == 1 && PyLong_Check(made)) {
                i = PyLong_AsLong(made);
                if (i >= 0)
                    split[i] = byte_level_size(byte_of, a);
            }
            Py_DECREF(a);
            Py_DECREF(b);
            if (PyErr_Occurred())
                goto error;
        }
        if (i < 0 || i <= last) {
            failed = Py_BuildValue("(Osn)", Py_None, "merge", k);
            goto done;
        }
        last = i;
    }
    if (PyDict_GET_SIZE(ranks) != n_merges + 256 || singles != 256)
        failed = Py_BuildValue("(OsO)", Py_None, "counts", Py_None);
done:
    result = failed != NULL ? failed : PyTuple_Pack(2, ranks, left);
error: /* (result NULL: an exception is set) */
    free(table.items);
    free(table.slots);
    free(buf);
    Py_DECREF(ranks);
    Py_XDECREF(left);
    return result;
}

/* pack_ranks(ranks) -> toklane.tokenizer.image_cache.ranks_payload(ranks) (counts as little-endian
 * uint32, then native int32 offsets and ranks, then the blob), or None where a key is not bytes or a
 * rank not an int32 (the caller's Python path then says what is wrong). */
static PyObject *
bpe_pack_ranks(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 1 || !PyDict_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "pack_ranks(ranks: dict)");
        return NULL;
    }
    PyObject *ranks = args[0], *token, *rank;
    Py_ssize_t pos = 0, n = PyDict_GET_SIZE(ranks);
    uint64_t size = 0;
    while (PyDict_Next(ranks, &pos, &token, &rank)) {
        if (!PyBytes_Check(token) || !PyLong_Check(rank))
            Py_RETURN_NONE;
        int overflow;
        long long r = PyLong_AsLongLongAndOverflow(rank, &overflow);
        if (overflow || r < INT32_MIN || r > INT32_MAX)
            Py_RETURN_NONE;
        size += (uint64_t)PyBytes_GET_SIZE(token);
    }
    if (size > INT32_MAX || n > INT32_MAX / 8)
        Py_RETURN_NONE;
    PyObject *out = PyBytes_FromStringAndSize(NULL, 8 + 4 * (n + 1) + 4 * n + (Py_ssize_t)size);
    if (out == NULL)
        return NULL;
    uint8_t *o = (uint8_t *)PyBytes_AS_STRING(out);
    uint32_t counts[2] = {(uint32_t)n, (uint32_t)size};
    for (int k = 0; k < 2; k++)
        for (int b = 0; b < 4; b++)
            o[4 * k + b] = (uint8_t)(counts[k] >> (8 * b));
    uint8_t *offsets = o + 8, *values = offsets + 4 * (n + 1), *blob = values + 4 * n;
    int32_t at = 0;
    memcpy(offsets, &at, 4);
    pos = 0;
    for (Py_ssize_t k = 0; PyDict_Next(ranks, &pos, &token, &rank); k++) {
        int32_t r = (int32_t)PyLong_AsLongLong(rank), len = (int32_t)PyBytes_GET_SIZE(token);
        memcpy(blob + at, PyBytes_AS_STRING(token), (size_t)len);
        at += len;
        memcpy(offsets + 4 * (k + 1), &at, 4);
        memcpy(values + 4 * k, &r, 4);
    }
    return out;
}

static PyMethodDef bpe_methods[] = {
    {"pack_ranks", (PyCFunction)(void (*)(void))bpe_pack_ranks, METH_FASTCALL,
     "pack_ranks(ranks) -> the ranks as an image payload (image_cache.ranks_payload), or None"},
    {"flag_scan", (PyCFunction)(void (*)(void))bpe_flag_scan, METH_FASTCALL,
     "flag_scan(flags, prefixes, text) -> (hits, shorts, candidates, windows) as bytes, or None for a "
     "lone surrogate"},
    {"nfc_spans", (PyCFunction)(void (*)(void))bpe_nfc_spans, METH_FASTCALL,
     "nfc_spans(flags, text, quick=False) -> the merged spans of text that NFC may change (quick: those "
     "its quick check leaves open, None where it says no)"},
    {"flagged", (PyCFunction)(void (*)(void))bpe_flagged, METH_FASTCALL,
     "flagged(flags, texts, longest) -> the indices of the texts that are long or hold a flagged character"},
    {"build", (PyCFunction)(void (*)(void))bpe_build, METH_FASTCALL,
     "build(ranks, classes, grammar) -> encoder"},
    {"build_packed", (PyCFunction)(void (*)(void))bpe_build_packed, METH_FASTCALL,
     "build_packed(payload, classes, grammar) -> encoder, over a packed ranks payload read in place"},
    {"packed_check", (PyCFunction)(void (*)(void))bpe_packed_check, METH_FASTCALL,
     "packed_check(payload) -> (layout sound, ranks dense from the lowest, single bytes, lowest rank)"},
    {"irregular", (PyCFunction)(void (*)(void))bpe_irregular, METH_FASTCALL,
     "irregular(encoder, left=None) -> the ranks of tokens rank BPE (or, given left, HF's merge rules) "
     "does not build from their own bytes"},
    {"sp_tune", (PyCFunction)(void (*)(void))bpe_sp_tune, METH_FASTCALL,
     "sp_tune(encoder, priorities, rules=None) -> pieces flagged as not their word's merge: SentencePiece BPE"},
    {"encoder_image", (PyCFunction)(void (*)(void))bpe_encoder_image, METH_FASTCALL,
     "encoder_image(encoder) -> the encoder's tables as an image build_mapped reads in place"},
    {"build_mapped", (PyCFunction)(void (*)(void))bpe_build_mapped, METH_FASTCALL,
     "build_mapped(image, classes, grammar) -> encoder over an image read in place, or None where unsound"},
    {"replay", (PyCFunction)(void (*)(void))bpe_replay, METH_FASTCALL,
     "replay(vocab, merges) -> (ranks, left) of a byte-level BPE model's merges, or (None, what, detail)"},
    {"decode", (PyCFunction)(void (*)(void))bpe_decode, METH_FASTCALL,
     "decode(encoder, ids) -> the ids' bytes joined, or None where one is not a rank"},
    {"encode", (PyCFunction)(void (*)(void))bpe_encode, METH_FASTCALL,
     "encode(encoder, text, mode) -> list of ids (mode 0), their number (1), bytes of uint32 ids (2), "
     "or None to decline the text"},
    {"front", (PyCFunction)(void (*)(void))bpe_front, METH_FASTCALL,
     "front(encoder, owner, method, leads, split_leads, max_length, flags, ordinary=None, full=None, stable=None, "
     "short_max=0, repeat_max=0) -> Tokenizer.encode's common call in C (see there)"},
    {"join_ids", (PyCFunction)(void (*)(void))bpe_join_ids, METH_FASTCALL,
     "join_ids(encoder, arrays) -> one list of the ids in arrays (bytes of uint32 ids)"},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot bpe_slots[] = {
#if PY_VERSION_HEX >= 0x030C0000
    /* (not a GIL of their own: FrontType is a static type, which interpreters can share only under one GIL) */
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_SUPPORTED},
#endif
    {0, NULL},
};

static struct PyModuleDef bpe_module = {
    PyModuleDef_HEAD_INIT, "toklane._bpe", "Ranked byte-level BPE behind a compiled pre-tokeniser.",
    0, bpe_methods, bpe_slots, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__bpe(void)
{
    return PyModuleDef_Init(&bpe_module);
}
