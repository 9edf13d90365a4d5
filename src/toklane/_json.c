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

static int
parse_args(PyObject *const *args, Py_ssize_t nargs, const char *name, PyObject **s, Py_ssize_t *i)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s expects (s, i)", name);
        return -1;
    }
    if (!PyUnicode_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "%s expects a str, got %.100s", name, Py_TYPE(args[0])->tp_name);
        return -1;
    }
    *i = PyLong_AsSsize_t(args[1]);
    if (*i == -1 && PyErr_Occurred())
        return -1;
    if (*i < 0 || *i > PyUnicode_GET_LENGTH(args[0])) {
        PyErr_Format(PyExc_IndexError, "%s: index %zd out of range", name, *i);
        return -1;
    }
    *s = args[0];
    return 0;
}

static PyObject *
value_end(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *s;
    Py_ssize_t i, r;
    if (parse_args(args, nargs, "value_end", &s, &i) < 0)
        return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    const void *data = PyUnicode_DATA(s);
    switch (PyUnicode_KIND(s)) {
    case PyUnicode_1BYTE_KIND:
        r = value_ucs1((const Py_UCS1 *)data, i, n);
        break;
    case PyUnicode_2BYTE_KIND:
        r = value_ucs2((const Py_UCS2 *)data, i, n);
        break;
    default:
        r = value_ucs4((const Py_UCS4 *)data, i, n);
    }
    if (r == -2)
        return PyErr_NoMemory();
    return PyLong_FromSsize_t(r >= 0 ? r : -1 - (-3 - r));
}

static PyObject *
string_end(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *s;
    Py_ssize_t i, r;
    if (parse_args(args, nargs, "string_end", &s, &i) < 0)
        return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    const void *data = PyUnicode_DATA(s);
    switch (PyUnicode_KIND(s)) {
    case PyUnicode_1BYTE_KIND:
        r = string_ucs1((const Py_UCS1 *)data, i, n);
        break;
    case PyUnicode_2BYTE_KIND:
        r = string_ucs2((const Py_UCS2 *)data, i, n);
        break;
    default:
        r = string_ucs4((const Py_UCS4 *)data, i, n);
    }
    return PyLong_FromSsize_t(r >= 0 ? r : -1 - (-3 - r));
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
