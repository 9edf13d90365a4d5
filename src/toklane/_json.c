/* toklane._json: where a JSON value in a str ends, checked without building it (the compiled half
 * of toklane.parsing.jsonscan's whole-value reads, which hold the contract and the fallback).
 *
 * value_end(s, i) -> int
 *   The end of the JSON value that starts at s[i] (no whitespace skipped): the index just past it
 *   where it is complete and valid, else -1 - k, where k is the index of the first character that
 *   cannot continue a valid value (len(s) where the text ends first).
 * string_end(s, i) -> int
 *   The same for a string whose opening quote is at s[i - 1]: the index just past its closing quote.
 * members(s, i, size) -> (end, spans)
 *   The members of the array or object that starts at s[i], in spans of about `size` characters, so
 *   that a large document can be decoded a piece at a time: end as value_end gives it, and spans a
 *   flat list of (start, value_start, stop) triples covering every member in order. A span is a run
 *   of whole members (value_start -1) that stops once it reaches `size` characters, or one member of
 *   `size` or more characters on its own (value_start: where its value starts, after an object
 *   member's key). Where the container is invalid, end is -1 - k and spans is empty. The walk runs
 *   without the GIL.
 *
 * Valid is RFC 8259, strictly: what jsonscan.JsonScanner accepts (json.loads accepts it too, but
 * for nesting deeper than Python's recursion limit and integers longer than its digit limit). A
 * top-level number ends where its longest valid prefix ends, as json's scan_once reads it. Nesting
 * is held in a growable stack, so depth is bounded by memory only. Strings are passed over 16
 * bytes at a time (SSE2) or 8 (SWAR, 1-byte strings) between quotes, backslashes and control
 * characters. No Python code runs and nothing is allocated but the stack of a value nested deeper
 * than 256.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* A character that ends a plain run in a string: a quote, a backslash or a control character. */
#define STOPS(c) ((c) == '"' || (c) == '\\' || (c) < 0x20)

static inline int
is_hex(Py_UCS4 c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

static inline int
is_ws(Py_UCS4 c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A growable list of span bounds, filled without the GIL. */
typedef struct {
    Py_ssize_t *items;
    Py_ssize_t len, cap;
} Spans;

static int
spans_push(Spans *spans, Py_ssize_t a, Py_ssize_t b, Py_ssize_t c)
{
    if (spans->len + 3 > spans->cap) {
        Py_ssize_t cap = spans->cap ? spans->cap * 2 : 192;
        Py_ssize_t *grown = PyMem_RawRealloc(spans->items, (size_t)cap * sizeof(Py_ssize_t));
        if (grown == NULL)
            return -1;
        spans->items = grown;
        spans->cap = cap;
    }
    spans->items[spans->len++] = a;
    spans->items[spans->len++] = b;
    spans->items[spans->len++] = c;
    return 0;
}

/* The readers, one per str kind: CHAR is the code unit, SUFFIX names them. */
#define CHAR Py_UCS1
#define SUFFIX ucs1
#include "_json_kind.h"
#undef CHAR
#undef SUFFIX

#define CHAR Py_UCS2
#define SUFFIX ucs2
#include "_json_kind.h"
#undef CHAR
#undef SUFFIX

#define CHAR Py_UCS4
#define SUFFIX ucs4
#include "_json_kind.h"
#undef CHAR
#undef SUFFIX

/* A reader of one str kind: the end index, or -3 - where it failed, or -2 (out of memory). */
typedef Py_ssize_t (*Reader)(const void *s, Py_ssize_t i, Py_ssize_t n);

static const Reader value_readers[3] = {value_ucs1, value_ucs2, value_ucs4};
static const Reader string_readers[3] = {string_ucs1, string_ucs2, string_ucs4};

/* (s, i) read by the reader of s's kind: the end, or -1 - where it failed. */
static PyObject *
read_end(PyObject *const *args, Py_ssize_t nargs, const char *name, const Reader *readers)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s expects (s, i)", name);
        return NULL;
    }
    PyObject *s = args[0];
    if (!PyUnicode_Check(s)) {
        PyErr_Format(PyExc_TypeError, "%s expects a str, got %.100s", name, Py_TYPE(s)->tp_name);
        return NULL;
    }
    Py_ssize_t i = PyLong_AsSsize_t(args[1]), n = PyUnicode_GET_LENGTH(s);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || i > n) {
        PyErr_Format(PyExc_IndexError, "%s: index %zd out of range", name, i);
        return NULL;
    }
    int kind = PyUnicode_KIND(s);
    Py_ssize_t r = readers[kind == PyUnicode_1BYTE_KIND ? 0 : kind == PyUnicode_2BYTE_KIND ? 1 : 2](
        PyUnicode_DATA(s), i, n);
    if (r == -2)
        return PyErr_NoMemory();
    return PyLong_FromSsize_t(r >= 0 ? r : -1 - (-3 - r));
}

static PyObject *
value_end(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return read_end(args, nargs, "value_end", value_readers);
}

static PyObject *
string_end(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return read_end(args, nargs, "string_end", string_readers);
}

typedef Py_ssize_t (*MembersReader)(const void *s, Py_ssize_t i, Py_ssize_t n, Py_ssize_t size, Spans *out);

static const MembersReader members_readers[3] = {members_ucs1, members_ucs2, members_ucs4};

static PyObject *
members(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "members expects (s, i, size)");
        return NULL;
    }
    PyObject *s = args[0];
    if (!PyUnicode_Check(s)) {
        PyErr_Format(PyExc_TypeError, "members expects a str, got %.100s", Py_TYPE(s)->tp_name);
        return NULL;
    }
    Py_ssize_t i = PyLong_AsSsize_t(args[1]), size = PyLong_AsSsize_t(args[2]), n = PyUnicode_GET_LENGTH(s);
    if ((i == -1 || size == -1) && PyErr_Occurred())
        return NULL;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    Py_UCS4 open = i >= 0 && i < n ? PyUnicode_READ(kind, data, i) : 0;
    if (open != '[' && open != '{') {
        PyErr_Format(PyExc_ValueError, "members: no array or object starts at index %zd", i);
        return NULL;
    }
    if (size < 1)
        size = 1;
    Spans spans = {NULL, 0, 0};
    Py_ssize_t r;
    MembersReader read = members_readers[kind == PyUnicode_1BYTE_KIND ? 0 : kind == PyUnicode_2BYTE_KIND ? 1 : 2];
    Py_BEGIN_ALLOW_THREADS
    r = read(data, i, n, size, &spans);
    Py_END_ALLOW_THREADS
    if (r == -2) {
        PyMem_RawFree(spans.items);
        return PyErr_NoMemory();
    }
    Py_ssize_t count = r >= 0 ? spans.len : 0;
    PyObject *list = PyList_New(count);
    if (list == NULL) {
        PyMem_RawFree(spans.items);
        return NULL;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *item = PyLong_FromSsize_t(spans.items[k]);
        if (item == NULL) {
            Py_DECREF(list);
            PyMem_RawFree(spans.items);
            return NULL;
        }
        PyList_SET_ITEM(list, k, item);
    }
    PyMem_RawFree(spans.items);
    return Py_BuildValue("(nN)", r >= 0 ? r : -1 - (-3 - r), list);
}

static PyMethodDef methods[] = {
    {"value_end", (PyCFunction)(void (*)(void))value_end, METH_FASTCALL,
     "value_end(s, i) -> end of the valid JSON value at s[i], or -1 - (where it fails)"},
    {"string_end", (PyCFunction)(void (*)(void))string_end, METH_FASTCALL,
     "string_end(s, i) -> end of the valid JSON string whose body starts at s[i], or -1 - (where it fails)"},
    {"members", (PyCFunction)(void (*)(void))members, METH_FASTCALL,
     "members(s, i, size) -> (end, [start, value_start, stop, ...]): the container at s[i] in spans of ~size"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "toklane._json", "Where a JSON value in a str ends, checked without building it.", -1,
    methods,
};

PyMODINIT_FUNC
PyInit__json(void)
{
    return PyModule_Create(&module);
}
