/* toklane._gather: many token ids in one pass (the compiled half of toklane.gather, which holds
 * the pure-Python fallback and the contract): their bytes (runs), or their int objects (id_list).
 *
 * runs(ids, blob, entries, decode, placeholders) reads a list or tuple of ids once. entries holds one
 * Entry per id (native byte order): where its bytes start in blob, how many, and its kind.
 *   - an ordinary id (kind 0) appends its bytes;
 *   - a marker id (kind 1) ends the current run and records its position;
 *   - a dropped id (kind 2), or -1 when placeholders is true, is skipped (the runs on either side join);
 *   - anything else (another kind; an id out of range; a value that is no exact int)
 *     makes the call return None, and nothing it built is kept: the caller's per-token
 *     loop then reads the ids and raises or skips exactly as it always does.
 * It returns (runs, positions): len(runs) == len(positions) + 1, each run as bytes,
 * or as str (UTF-8, invalid bytes replaced by U+FFFD) when decode is true.
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

/* One entry per id: where its bytes start in blob, how many, and its kind (8 bytes: one load). */
typedef struct {
    uint32_t start;
    uint16_t size;
    uint8_t kind;
    uint8_t pad;
} Entry;

/* Bytes a token is copied by, at once, when it is no longer (blob and the buffer have this much slack). */
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

static PyObject *
gather_runs(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "runs(ids, blob, entries, decode, placeholders) takes 5 arguments");
        return NULL;
    }
    PyObject *ids = args[0], *blob = args[1], *entries = args[2];
    int decode = PyObject_IsTrue(args[3]), placeholders = PyObject_IsTrue(args[4]);
    if (decode < 0 || placeholders < 0)
        return NULL;
    if (!PyList_CheckExact(ids) && !PyTuple_CheckExact(ids)) {
        PyErr_SetString(PyExc_TypeError, "runs: ids must be a list or a tuple");
        return NULL;
    }
    if (!PyBytes_CheckExact(blob) || !PyBytes_CheckExact(entries) || PyBytes_GET_SIZE(entries) % sizeof(Entry)) {
        PyErr_SetString(PyExc_TypeError, "runs: blob must be bytes, entries bytes of 8-byte entries");
        return NULL;
    }
    const char *bytes = PyBytes_AS_STRING(blob);
    uint64_t blob_size = (uint64_t)PyBytes_GET_SIZE(blob);
    const Entry *table = (const Entry *)PyBytes_AS_STRING(entries);
    unsigned long vocab = (unsigned long)(PyBytes_GET_SIZE(entries) / (Py_ssize_t)sizeof(Entry));
    /* A token of at most WORD bytes starting at or before this is copied by one fixed-size copy. */
    uint64_t word_limit = blob_size >= WORD ? blob_size - WORD : 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(ids);
    Py_ssize_t cap = n * 6 + BLOCK * WORD, size = 0, start = 0;
    char *buf = PyMem_Malloc(cap + WORD);
    PyObject *runs = PyList_New(0), *positions = PyList_New(0);
    if (buf == NULL || runs == NULL || positions == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    /* (read after the allocations above, which may run the garbage collector: see below) */
    n = PySequence_Fast_GET_SIZE(ids);
    PyObject **items = PySequence_Fast_ITEMS(ids);
    PyTypeObject *long_type = &PyLong_Type;
    /* The ids in blocks: before each, the buffer holds room for BLOCK short tokens, so the common
     * case (an ordinary token of at most WORD bytes) is a load, a fixed-size copy and an add. */
    for (Py_ssize_t block = 0; block < n; block += BLOCK) {
        if (!ensure_room(&buf, &cap, size + BLOCK * WORD))
            goto fail;
        Py_ssize_t block_end = block + BLOCK < n ? block + BLOCK : n;
        for (Py_ssize_t p = block; p < block_end; p++) {
            PyObject *item = items[p];
            if (UNLIKELY(Py_TYPE(item) != long_type))
                goto decline;
            unsigned long t = (unsigned long)id_value(item);
            if (UNLIKELY(t >= vocab)) { /* (negative ones too) */
                if ((long)t == -1 && placeholders) /* a placeholder of async scheduling: not a token yet */
                    continue;
                goto decline;
            }
            Entry e = table[t];
            if (LIKELY(e.kind == 0 && e.size <= WORD && e.start <= word_limit)) {
                memcpy(buf + size, bytes + e.start, WORD); /* a fixed-size copy: no call */
                size += e.size;
            }
            else if (e.kind == 0) { /* a long token (or one at the blob's end) */
                if ((uint64_t)e.start + e.size > blob_size)
                    goto decline;
                if (!ensure_room(&buf, &cap, size + e.size + BLOCK * WORD))
                    goto fail;
                memcpy(buf + size, bytes + e.start, e.size);
                size += e.size;
            }
            else if (e.kind == 1) {
                PyObject *run = make_run(buf + start, size - start, decode);
                PyObject *pos = PyLong_FromSsize_t(p);
                int bad = run == NULL || pos == NULL || PyList_Append(runs, run) || PyList_Append(positions, pos);
                Py_XDECREF(run);
                Py_XDECREF(pos);
                if (bad)
                    goto fail;
                start = size;
                /* Allocating may run the garbage collector, and a finalizer may change the list: read
                 * its items and length afresh (a marker is rare; the loop over ordinary ids allocates
                 * nothing). */
                items = PySequence_Fast_ITEMS(ids);
                n = PySequence_Fast_GET_SIZE(ids);
                if (block_end > n)
                    block_end = n;
            }
            else if (e.kind != 2)
                goto decline;
        }
    }
    PyObject *last = make_run(buf + start, size - start, decode);
    if (last == NULL || PyList_Append(runs, last)) {
        Py_XDECREF(last);
        goto fail;
    }
    Py_DECREF(last);
    PyMem_Free(buf);
    PyObject *result = PyTuple_Pack(2, runs, positions);
    Py_DECREF(runs);
    Py_DECREF(positions);
    return result;

decline:
    PyMem_Free(buf);
    Py_DECREF(runs);
    Py_DECREF(positions);
    Py_RETURN_NONE;
fail:
    PyMem_Free(buf);
    Py_XDECREF(runs);
    Py_XDECREF(positions);
    return NULL;
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

static PyMethodDef gather_methods[] = {
    {"runs", (PyCFunction)(void (*)(void))gather_runs, METH_FASTCALL,
     "runs(ids, blob, entries, decode, placeholders) -> (runs, marker positions) or None"},
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
