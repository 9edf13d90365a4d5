/* toklane._json: where a JSON value in a str ends, checked without building it (the compiled half
 * of toklane.parsing.jsonscan's whole-value reads, which hold the contract and the fallback).
 *
 * value_end(s, i) -> int
 *   The end of the JSON value that starts at s[i] (no whitespace skipped): the index just past it
 *   where it is complete and valid, else -1 - k, where k is the index of the first character that
 *   cannot continue a valid value (len(s) where the text ends first).
 * string_end(s, i) -> int
 *   The same for a string whose opening quote is at s[i - 1]: the index just past its closing quote.
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

static PyMethodDef methods[] = {
    {"value_end", (PyCFunction)(void (*)(void))value_end, METH_FASTCALL,
     "value_end(s, i) -> end of the valid JSON value at s[i], or -1 - (where it fails)"},
    {"string_end", (PyCFunction)(void (*)(void))string_end, METH_FASTCALL,
     "string_end(s, i) -> end of the valid JSON string whose body starts at s[i], or -1 - (where it fails)"},
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
