/* toklane._gather: many token ids in one pass (the compiled half of toklane.gather, which holds
 * the pure-Python fallback and the contract): their bytes (runs), their text (text), or their int
 * objects (id_list).
 *
 * runs(ids, blob, entries, kinds, decode, placeholders) reads a list or tuple of ids once. entries
 * holds one Entry per id (below: a short token's bytes inline, else where its bytes are in blob),
 * kinds one kind per id:
 *   - an ordinary id (kind 0) appends its bytes;
 *   - a marker id (kind 1) ends the current run and records its position;
 *   - a dropped id (kind 2), or -1 when placeholders is true, is skipped (the runs on either side join);
 *   - anything else (another kind; an id out of range; a value that is no exact int)
 *     makes the call return None, and nothing it built is kept: the caller's per-token
 *     loop then reads the ids and raises or skips exactly as it always does.
 * It returns (runs, positions): len(runs) == len(positions) + 1, each run as bytes,
 * or as str (UTF-8, invalid bytes replaced by U+FFFD) when decode is true.
 *
 * text(ids, blob, entries, kinds, placeholders) reads them the same way, but a marker's own bytes
 * stay in its place: (text, positions, starts), text the runs and markers decoded as if each on
 * its own and joined (decoded whole, which is the same where the markers' bytes are whole
 * characters), starts where each marker's text starts in it.
 *
 * ints(size) -> a cache; id_list(cache, ids) -> a buffer of uint32 ids (a numpy array) as a list
 * of ints, each id below size one shared int object made on its first use (an incref per id).
 * Between markers no Python code can run (exact ints only, no allocation), so the sequence cannot
 * change under the scan; after each marker's allocations it is read afresh. Every read from blob
 * is bounds-checked, whatever entries holds.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_ids.h"

#if defined(__GNUC__)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define LIKELY(x) (x)
#define UNLIKELY(x) (x)
#endif

/* The value of an exact int read straight from the object (PyLong_AsLong costs 5x more per id);
 * LONG_MIN for one of more than 30 bits (out of range for any vocabulary). */
static inline long
id_value(PyObject *item)
{
#if PY_VERSION_HEX >= 0x030C0000
    if (PyUnstable_Long_IsCompact((PyLongObject *)item))
        return (long)PyUnstable_Long_CompactValue((PyLongObject *)item);
    return LONG_MIN;
#else
    Py_ssize_t size = Py_SIZE(item);
    if (LIKELY(size == 1))
        return (long)((PyLongObject *)item)->ob_digit[0];
    if (size == -1)
        return -(long)((PyLongObject *)item)->ob_digit[0];
    return size == 0 ? 0 : LONG_MIN;
#endif
}

static PyObject *
make_run(const char *data, Py_ssize_t size, int decode)
{
    if (decode)
        return PyUnicode_DecodeUTF8(data, size, "replace");
    return PyBytes_FromStringAndSize(data, size);
}

/* One entry per id (16 bytes: one load). A short ordinary token (other == 0) holds its bytes
 * inline, so reading it is a load and a 16-byte copy. Any other id (other == 1: a long token, an
 * added token, a hole) has its kind in the table's kinds, one byte per id, and where its bytes
 * start in blob and how many in data[0:4] and data[4:8] (native byte order). */
typedef struct {
    uint8_t data[14];
    uint8_t size;
    uint8_t other;
} Entry;

enum { ORDINARY = 0, MARKER = 1, DROPPED = 2 };

/* Bytes a short token is copied by (an Entry; the buffer has this much slack). */
#define WORD 16
/* Ids read between checks of the buffer's room. */
#define BLOCK 64

/* Grow *buf (holding *cap bytes, plus WORD of slack) to hold at least need bytes: 0 on failure. */
static int
ensure_room(char **buf, Py_ssize_t *cap, Py_ssize_t need)
{
    if (need <= *cap)
        return 1;
    Py_ssize_t grown_cap = 2 * need;
    char *grown = PyMem_Realloc(*buf, grown_cap + WORD);
    if (grown == NULL) {
        PyErr_NoMemory();
        return 0;
    }
    *buf = grown;
    *cap = grown_cap;
    return 1;
}

/* What one read of ids builds. */
typedef struct {
    char *buf;              /* the bytes read so far */
    Py_ssize_t cap, size;   /* room in buf (plus WORD of slack), bytes in it */
    Py_ssize_t run_start;   /* (runs) where the current run starts in buf */
    PyObject *runs;         /* (runs) the runs cut so far */
    PyObject *positions;    /* where the marker ids are */
    Positions offsets;      /* (text) where each marker's bytes start and end in buf: two per marker */
} Reader;

static void
reader_clear(Reader *r)
{
    PyMem_Free(r->buf);
    PyMem_RawFree(r->offsets.at);
    Py_CLEAR(r->runs);
    Py_CLEAR(r->positions);
}

/* Append n bytes of blob at start (bounds-checked): 1, 0 when they lie outside blob, -1 on failure. */
static int
append_blob(Reader *r, const char *blob, uint64_t blob_size, const Entry *e)
{
    uint32_t start, size;
    memcpy(&start, e->data, 4);
    memcpy(&size, e->data + 4, 4);
    if ((uint64_t)start + size > blob_size)
        return 0;
    if (!ensure_room(&r->buf, &r->cap, r->size + size + BLOCK * WORD))
        return -1;
    memcpy(r->buf + r->size, blob + start, size);
    r->size += size;
    return 1;
}

/* Read ids (a list or a tuple) into r: 1 done, 0 declined (see the module docstring), -1 failed.
 * text: a marker's own bytes go in its place (and its offsets into r->offsets); else the runs are
 * cut at it (as str when decode). */
static int
read_ids(Reader *r, PyObject *ids, PyObject *blob, PyObject *entries, PyObject *kinds_obj, int text, int decode,
         int placeholders)
{
    const char *bytes = PyBytes_AS_STRING(blob);
    uint64_t blob_size = (uint64_t)PyBytes_GET_SIZE(blob);
    const Entry *table = (const Entry *)PyBytes_AS_STRING(entries);
    const uint8_t *kinds = (const uint8_t *)PyBytes_AS_STRING(kinds_obj);
    unsigned long vocab = (unsigned long)PyBytes_GET_SIZE(kinds_obj);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(ids);
    r->cap = n * 6 + BLOCK * WORD;
    r->buf = PyMem_Malloc(r->cap + WORD);
    r->positions = PyList_New(0);
    if (!text)
        r->runs = PyList_New(0);
    if (r->buf == NULL || r->positions == NULL || (!text && r->runs == NULL)) {
        PyErr_NoMemory();
        return -1;
    }
    /* (read after the allocations above, which may run the garbage collector: see below) */
    n = PySequence_Fast_GET_SIZE(ids);
    PyObject **items = PySequence_Fast_ITEMS(ids);
    PyTypeObject *long_type = &PyLong_Type;
    /* The ids in blocks: before each, the buffer holds room for BLOCK short tokens, so the common
     * case (a short ordinary token) is a load, a 16-byte copy and an add. */
    for (Py_ssize_t block = 0; block < n; block += BLOCK) {
        if (!ensure_room(&r->buf, &r->cap, r->size + BLOCK * WORD))
            return -1;
        Py_ssize_t block_end = block + BLOCK < n ? block + BLOCK : n;
        char *buf = r->buf;
        Py_ssize_t size = r->size;
        for (Py_ssize_t p = block; p < block_end; p++) {
            PyObject *item = items[p];
            if (UNLIKELY(Py_TYPE(item) != long_type))
                return 0;
            unsigned long t = (unsigned long)id_value(item);
            if (UNLIKELY(t >= vocab)) { /* (negative ones too) */
                if ((long)t == -1 && placeholders) /* a placeholder of async scheduling: not a token yet */
                    continue;
                return 0;
            }
            const Entry *e = table + t;
            memcpy(buf + size, e, WORD); /* a fixed-size copy: no call */
            if (LIKELY(e->other == 0)) {
                size += e->size;
                continue;
            }
            r->size = size;
            uint8_t kind = kinds[t];
            int got = 1;
            if (kind == ORDINARY) /* a long token */
                got = append_blob(r, bytes, blob_size, e);
            else if (kind == MARKER) {
                PyObject *pos = PyLong_FromSsize_t(p);
                if (pos == NULL || PyList_Append(r->positions, pos)) {
                    Py_XDECREF(pos);
                    return -1;
                }
                Py_DECREF(pos);
                if (text) {
                    if (positions_add(&r->offsets, r->size) < 0) {
                        PyErr_NoMemory();
                        return -1;
                    }
                    got = append_blob(r, bytes, blob_size, e);
                    if (got > 0 && positions_add(&r->offsets, r->size) < 0) {
                        PyErr_NoMemory();
                        return -1;
                    }
                }
                else {
                    PyObject *run = make_run(r->buf + r->run_start, r->size - r->run_start, decode);
                    if (run == NULL || PyList_Append(r->runs, run)) {
                        Py_XDECREF(run);
                        return -1;
                    }
                    Py_DECREF(run);
                    r->run_start = r->size;
                }
                /* Allocating may run the garbage collector, and a finalizer may change the list: read
                 * its items and length afresh (a marker is rare; the loop over ordinary ids allocates
                 * nothing). */
                items = PySequence_Fast_ITEMS(ids);
                n = PySequence_Fast_GET_SIZE(ids);
                if (block_end > n)
                    block_end = n;
            }
            else if (kind != DROPPED)
                return 0;
            if (got <= 0)
                return got;
            buf = r->buf; /* (a long token or a marker may have grown it) */
            size = r->size;
        }
        r->size = size;
    }
    return 1;
}

/* The Entry table, the kinds and the blob, checked: 0 with TypeError where they do not fit. The ids
 * read are those below the number of kinds (entries may go on: a table shared by vocabularies of
 * different sizes). */
static int
check_tables(const char *name, PyObject *ids, PyObject *blob, PyObject *entries, PyObject *kinds)
{
    if (!PyList_CheckExact(ids) && !PyTuple_CheckExact(ids)) {
        PyErr_Format(PyExc_TypeError, "%s: ids must be a list or a tuple", name);
        return 0;
    }
    if (!PyBytes_CheckExact(blob) || !PyBytes_CheckExact(entries) || !PyBytes_CheckExact(kinds) ||
        PyBytes_GET_SIZE(entries) % (Py_ssize_t)sizeof(Entry) ||
        PyBytes_GET_SIZE(entries) < PyBytes_GET_SIZE(kinds) * (Py_ssize_t)sizeof(Entry)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: blob, entries and kinds must be bytes: a kind per id, 16-byte entries for each", name);
        return 0;
    }
    return 1;
}

static PyObject *
gather_runs(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "runs(ids, blob, entries, kinds, decode, placeholders) takes 6 arguments");
        return NULL;
    }
    int decode = PyObject_IsTrue(args[4]), placeholders = PyObject_IsTrue(args[5]);
    if (decode < 0 || placeholders < 0 || !check_tables("runs", args[0], args[1], args[2], args[3]))
        return NULL;
    Reader r = {0};
    int got = read_ids(&r, args[0], args[1], args[2], args[3], 0, decode, placeholders);
    PyObject *result = NULL;
    if (got > 0) {
        PyObject *last = make_run(r.buf + r.run_start, r.size - r.run_start, decode);
        if (last != NULL && PyList_Append(r.runs, last) == 0)
            result = PyTuple_Pack(2, r.runs, r.positions);
        Py_XDECREF(last);
    }
    else if (got == 0)
        result = Py_NewRef(Py_None);
    reader_clear(&r);
    return result;
}

/* How many bytes of b[0:n] are UTF-8 continuation bytes (10xxxxxx): 8 at a time, each byte's count
 * summed in its own lane of acc (at most 255 rounds, then the lanes are added up in 16-bit lanes). */
static Py_ssize_t
continuation_bytes(const unsigned char *b, Py_ssize_t n)
{
    const uint64_t high = 0x8080808080808080ULL;
    Py_ssize_t count = 0, i = 0;
    while (i + 8 <= n) {
        uint64_t acc = 0;
        for (int round = 0; round < 255 && i + 8 <= n; round++, i += 8) {
            uint64_t w;
            memcpy(&w, b + i, 8);
            acc += (w & ~(w << 1) & high) >> 7; /* 1 in a byte whose top bits are 10 */
        }
        uint64_t pairs = (acc & 0x00FF00FF00FF00FFULL) + ((acc >> 8) & 0x00FF00FF00FF00FFULL); /* 16-bit lanes */
        count += (Py_ssize_t)((pairs * 0x0001000100010001ULL) >> 48);
    }
    for (; i < n; i++)
        count += (b[i] & 0xC0) == 0x80;
    return count;
}

/* The character offsets of the markers in text (r->buf decoded whole): a list, or NULL with no
 * exception where they are not the counts of lead bytes before them, or NULL with an exception.
 * Each lead byte starts a character of the decoded text, and a continuation byte that follows none
 * makes one more: so the counts are the offsets exactly when they add up to the text's length. */
static PyObject *
char_offsets(const Reader *r, PyObject *text)
{
    Py_ssize_t markers = r->offsets.count / 2;
    PyObject *starts = PyList_New(markers);
    if (starts == NULL)
        return NULL;
    int ascii = PyUnicode_IS_ASCII(text);
    const unsigned char *b = (const unsigned char *)r->buf;
    Py_ssize_t at = 0, chars = 0;
    for (Py_ssize_t k = 0; k <= markers; k++) {
        Py_ssize_t to = k < markers ? r->offsets.at[2 * k] : r->size;
        chars = ascii ? to : chars + (to - at) - continuation_bytes(b + at, to - at);
        at = to;
        if (k == markers)
            break;
        PyObject *start = PyLong_FromSsize_t(chars);
        if (start == NULL) {
            Py_DECREF(starts);
            return NULL;
        }
        PyList_SET_ITEM(starts, k, start);
    }
    if (chars != PyUnicode_GET_LENGTH(text))
        Py_CLEAR(starts);
    return starts;
}

/* As char_offsets where they do not add up: the text decoded a piece at a time (each run and each
 * marker on its own), joined into *text. */
static PyObject *
piecewise(const Reader *r, PyObject **text)
{
    Py_ssize_t markers = r->offsets.count / 2;
    PyObject *pieces = PyList_New(0), *starts = PyList_New(markers), *empty = PyUnicode_New(0, 0);
    if (pieces == NULL || starts == NULL || empty == NULL)
        goto fail;
    Py_ssize_t at = 0, chars = 0;
    for (Py_ssize_t j = 0; j <= r->offsets.count; j++) { /* the pieces end at each offset, the last at the end */
        Py_ssize_t end = j < r->offsets.count ? r->offsets.at[j] : r->size;
        if (j % 2 == 1) { /* (piece j is marker j / 2) */
            PyObject *start = PyLong_FromSsize_t(chars);
            if (start == NULL)
                goto fail;
            PyList_SET_ITEM(starts, j / 2, start);
        }
        PyObject *piece = PyUnicode_DecodeUTF8(r->buf + at, end - at, "replace");
        if (piece == NULL || PyList_Append(pieces, piece)) {
            Py_XDECREF(piece);
            goto fail;
        }
        chars += PyUnicode_GET_LENGTH(piece);
        Py_DECREF(piece);
        at = end;
    }
    *text = PyUnicode_Join(empty, pieces);
    if (*text == NULL)
        goto fail;
    Py_DECREF(pieces);
    Py_DECREF(empty);
    return starts;
fail:
    Py_XDECREF(pieces);
    Py_XDECREF(starts);
    Py_XDECREF(empty);
    return NULL;
}

static PyObject *
gather_text(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "text(ids, blob, entries, kinds, placeholders) takes 5 arguments");
        return NULL;
    }
    int placeholders = PyObject_IsTrue(args[4]);
    if (placeholders < 0 || !check_tables("text", args[0], args[1], args[2], args[3]))
        return NULL;
    Reader r = {0};
    int got = read_ids(&r, args[0], args[1], args[2], args[3], 1, 1, placeholders);
    PyObject *result = NULL, *text = NULL, *starts = NULL;
    if (got > 0) {
        text = PyUnicode_DecodeUTF8(r.buf, r.size, "replace");
        if (text != NULL && (starts = char_offsets(&r, text)) == NULL && !PyErr_Occurred()) {
            Py_CLEAR(text);
            starts = piecewise(&r, &text);
        }
        if (starts != NULL)
            result = PyTuple_Pack(3, text, r.positions, starts);
    }
    else if (got == 0)
        result = Py_NewRef(Py_None);
    Py_XDECREF(text);
    Py_XDECREF(starts);
    reader_clear(&r);
    return result;
}

/* ------------------------------------------------------------------ ids as a list of ints */

/* The cache behind id_list: an IdInts (_ids.h) in a capsule. */
static void
ints_free(PyObject *capsule)
{
    IdInts *c = PyCapsule_GetPointer(capsule, "toklane._gather.Ints");
    if (c == NULL)
        return;
    id_ints_clear(c);
    PyMem_Free(c);
}

static PyObject *
gather_ints(PyObject *module, PyObject *arg)
{
    Py_ssize_t size = PyLong_AsSsize_t(arg);
    if (size == -1 && PyErr_Occurred())
        return NULL;
    if (size < 0 || size > (1 << 26)) {
        PyErr_SetString(PyExc_ValueError, "ints: size must be 0 to 2**26");
        return NULL;
    }
    IdInts *c = PyMem_Calloc(1, sizeof(IdInts));
    if (c == NULL)
        return PyErr_NoMemory();
    if (id_ints_init(c, size) < 0) {
        PyMem_Free(c);
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(c, "toklane._gather.Ints", ints_free);
    if (capsule == NULL) {
        id_ints_clear(c);
        PyMem_Free(c);
    }
    return capsule;
}

/* id_list(ints, ids) -> list: ids, a contiguous buffer of 4-byte unsigned ints (a numpy uint32
 * array, an array('I'), a memoryview), as a list of int objects shared through the cache. */
/* A contiguous buffer of native uint32 ids: its view and length in ids, or -1 (an error set). */
static Py_ssize_t
id_view(PyObject *ids, Py_buffer *view)
{
    if (PyObject_GetBuffer(ids, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    const char *format = view->format == NULL ? "B" : view->format;
    if (*format == '=' || *format == '@') /* native order (the ids are read as native uint32) */
        format++;
    if (view->itemsize != 4 || (strcmp(format, "I") != 0 && strcmp(format, "L") != 0)) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_TypeError, "id_list: ids must be contiguous buffers of 4-byte unsigned ints");
        return -1;
    }
    return view->len / 4;
}

/* id_list(ints, ids): one buffer of ids, or a list of them (joined end to end, without a copy of
 * the ids), as one list of shared ints. Each buffer is held while it is read (making an int may
 * run the garbage collector). */
static PyObject *
gather_id_list(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "id_list(ints, ids) takes 2 arguments");
        return NULL;
    }
    IdInts *c = PyCapsule_GetPointer(args[0], "toklane._gather.Ints");
    if (c == NULL)
        return NULL;
    Py_buffer view;
    if (!PyList_CheckExact(args[1])) {
        Py_ssize_t n = id_view(args[1], &view);
        if (n < 0)
            return NULL;
        PyObject *list = PyList_New(n);
        if (list != NULL && id_ints_fill(c, list, 0, (const uint32_t *)view.buf, (size_t)n) < 0)
            Py_CLEAR(list);
        PyBuffer_Release(&view);
        return list;
    }
    return id_ints_join(c, args[1], id_view, "id_list: the buffers changed");
}

/* flat_lists(ints, ids, offsets): a flat batch encoding (fastokens' encode_batch_flat: ids, every text's
 * ids end to end as little-endian uint32 bytes; offsets, one more little-endian uint64 than the texts,
 * where each text's ids start) as one list of ids per text, the ints shared through the cache.
 * ValueError where the buffers disagree (a size not a multiple of the item, an offset out of order or
 * past the ids). The buffers are read as views held for the call. */
static PyObject *
gather_flat_lists(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "flat_lists(ints, ids, offsets) takes 3 arguments");
        return NULL;
    }
    IdInts *c = PyCapsule_GetPointer(args[0], "toklane._gather.Ints");
    if (c == NULL)
        return NULL;
    Py_buffer ids, offsets;
    if (PyObject_GetBuffer(args[1], &ids, PyBUF_SIMPLE) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[2], &offsets, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&ids);
        return NULL;
    }
    PyObject *result = NULL;
    const unsigned char *id_bytes = ids.buf, *at = offsets.buf;
    Py_ssize_t total = ids.len / 4;
    if (ids.len % 4 || offsets.len % 8 || offsets.len == 0) {
        PyErr_SetString(PyExc_ValueError, "flat_lists: ids must be 4-byte items and offsets 8-byte ones, at least one");
        goto done;
    }
    Py_ssize_t texts = offsets.len / 8 - 1;
    if ((result = PyList_New(texts)) == NULL)
        goto done;
    uint64_t start = read_le(at, 8);
    for (Py_ssize_t k = 0; k < texts; k++) {
        /* (each offset checked as it is read: a list's allocation may run finalizers, which could
         * write into a bytearray's items, though not resize it while it is viewed) */
        uint64_t end = read_le(at + 8 * (k + 1), 8);
        if (start > end || end > (uint64_t)total) {
            PyErr_SetString(PyExc_ValueError, "flat_lists: offsets out of order or past the ids");
            Py_CLEAR(result);
            goto done;
        }
        PyObject *list = PyList_New((Py_ssize_t)(end - start));
        if (list == NULL || id_ints_fill_le(c, list, 0, id_bytes + 4 * start, (Py_ssize_t)(end - start)) < 0) {
            Py_XDECREF(list);
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, k, list);
        start = end;
    }
done:
    PyBuffer_Release(&ids);
    PyBuffer_Release(&offsets);
    return result;
}

static PyMethodDef gather_methods[] = {
    {"flat_lists", (PyCFunction)(void (*)(void))gather_flat_lists, METH_FASTCALL,
     "flat_lists(ints, ids, offsets) -> a flat batch encoding's ids as a list per text"},
    {"runs", (PyCFunction)(void (*)(void))gather_runs, METH_FASTCALL,
     "runs(ids, blob, entries, kinds, decode, placeholders) -> (runs, marker positions) or None"},
    {"text", (PyCFunction)(void (*)(void))gather_text, METH_FASTCALL,
     "text(ids, blob, entries, kinds, placeholders) -> (text, marker positions, marker offsets in text) or None"},
    {"ints", (PyCFunction)gather_ints, METH_O, "ints(size) -> a cache of the int objects of ids below size"},
    {"id_list", (PyCFunction)(void (*)(void))gather_id_list, METH_FASTCALL,
     "id_list(ints, ids) -> the uint32 ids as a list of ints, shared through the cache"},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot gather_slots[] = {
#if PY_VERSION_HEX >= 0x030C0000
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
    {0, NULL},
};

static struct PyModuleDef gather_module = {
    PyModuleDef_HEAD_INIT, "toklane._gather", "The bytes of many token ids in one pass (see toklane.gather).",
    0, gather_methods, gather_slots, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__gather(void)
{
    return PyModuleDef_Init(&gather_module);
}
