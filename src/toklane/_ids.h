/* The C that toklane._bpe and toklane._gather share: token ids as Python lists of shared int
 * objects (an encoder's results, quicktok's id arrays, gather.IdLists), and Positions, a growable
 * array of offsets.
 *
 * An IdInts holds the int object of each id below its size, made on the id's first use and kept;
 * a list of ids then costs an incref per id, where making an int per id costs ~20-40 ns. Every
 * function here runs with the GIL held (which is what makes the first-use fill safe). Include it
 * after Python.h.
 */
#ifndef TOKLANE_IDS_H
#define TOKLANE_IDS_H

#include <stdint.h>

typedef struct {
    Py_ssize_t size;
    PyObject **ints; /* size slots, NULL until an id's first use */
} IdInts;

/* 0, or -1 with MemoryError. */
static inline int
id_ints_init(IdInts *c, Py_ssize_t size)
{
    c->size = size;
    c->ints = PyMem_Calloc((size_t)size + 1, sizeof(PyObject *));
    if (c->ints == NULL) {
        c->size = 0;
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static inline void
id_ints_clear(IdInts *c)
{
    if (c->ints != NULL)
        for (Py_ssize_t i = 0; i < c->size; i++)
            Py_XDECREF(c->ints[i]);
    PyMem_Free(c->ints);
    c->ints = NULL;
    c->size = 0;
}

/* list[at:at + n] = the int objects of ids (a new list's empty slots); ids at or past size are made
 * each time. -1 with an exception on failure (the slots not filled stay NULL, which a list's
 * dealloc skips). */
static inline int
id_ints_fill(IdInts *c, PyObject *list, Py_ssize_t at, const uint32_t *ids, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t v = ids[i];
        PyObject *id;
        if ((Py_ssize_t)v >= c->size)
            id = PyLong_FromUnsignedLong(v);
        else if ((id = c->ints[v]) != NULL)
            Py_INCREF(id);
        else if ((id = PyLong_FromUnsignedLong(v)) != NULL)
            c->ints[v] = Py_NewRef(id);
        if (id == NULL)
            return -1;
        PyList_SET_ITEM(list, at + (Py_ssize_t)i, id);
    }
    return 0;
}

/* A little-endian unsigned integer of size bytes at p (the flat buffers' byte order, on any host). */
static inline uint64_t
read_le(const unsigned char *p, int size)
{
    uint64_t v = 0;
    for (int k = size - 1; k >= 0; k--)
        v = (v << 8) | p[k];
    return v;
}

/* list[at:at + n] = the shared ints of n little-endian uint32 ids at p (a flat buffer from another
 * engine: fastokens' encode_batch_flat), as id_ints_fill does. */
static inline int
id_ints_fill_le(IdInts *c, PyObject *list, Py_ssize_t at, const unsigned char *p, Py_ssize_t n)
{
#if PY_LITTLE_ENDIAN
    if (((uintptr_t)p & 3) == 0)
        return id_ints_fill(c, list, at, (const uint32_t *)p, (size_t)n);
#endif
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t v = (uint32_t)read_le(p + 4 * i, 4);
        if (id_ints_fill(c, list, at + i, &v, 1) < 0)
            return -1;
    }
    return 0;
}

/* What id_ints_join reads a part with: its ids in *view (which the caller releases) and how many,
 * or -1 with an exception set. */
typedef Py_ssize_t (*IdReader)(PyObject *part, Py_buffer *view);

/* One list of the ids of parts (a list each of whose items read accepts), end to end. Allocating
 * (the list, an id's first int) may run the garbage collector, and a finalizer may change parts:
 * it is read afresh, each part held while it is read and its size checked again (RuntimeError
 * with the message changed where it no longer fits). */
static inline PyObject *
id_ints_join(IdInts *c, PyObject *parts, IdReader read, const char *changed)
{
    Py_buffer view;
    Py_ssize_t count = PyList_GET_SIZE(parts), total = 0, at = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        Py_ssize_t n = read(PyList_GET_ITEM(parts, k), &view);
        if (n < 0)
            return NULL;
        PyBuffer_Release(&view);
        total += n;
    }
    PyObject *list = PyList_New(total);
    if (list == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(parts) && k < count; k++) {
        PyObject *part = Py_NewRef(PyList_GET_ITEM(parts, k));
        Py_ssize_t n = read(part, &view); /* (the view holds the part from here) */
        Py_DECREF(part);
        if (n < 0)
            goto fail;
        int bad = n > total - at;
        if (bad)
            PyErr_SetString(PyExc_RuntimeError, changed);
        else
            bad = id_ints_fill(c, list, at, (const uint32_t *)view.buf, (size_t)n) < 0;
        PyBuffer_Release(&view);
        if (bad)
            goto fail;
        at += n;
    }
    if (at == total)
        return list;
    PyErr_SetString(PyExc_RuntimeError, changed);
fail:
    Py_DECREF(list);
    return NULL;
}

/* Positions in a text or a buffer (nfc_spans' bounds, flag_scan's finds, gather's marker offsets),
 * grown as needed; safe without the GIL (raw allocations). Free at with PyMem_RawFree. */
typedef struct {
    int64_t *at;
    Py_ssize_t count, cap;
} Positions;

/* 0, or -1 when it cannot grow (no exception set: the caller may hold no GIL). */
static inline int
positions_add(Positions *p, int64_t at)
{
    if (p->count == p->cap) {
        Py_ssize_t cap = p->cap ? 2 * p->cap : 256;
        int64_t *grown = PyMem_RawRealloc(p->at, cap * sizeof(int64_t));
        if (grown == NULL)
            return -1;
        p->at = grown;
        p->cap = cap;
    }
    p->at[p->count++] = at;
    return 0;
}

#endif
