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
 *
 * schema_ok(tools, kinds, max_depth) -> bool
 *   True only where toklane.parsing.schema's walk accepts the tools_schema `tools` (the walk holds the
 *   rules and the errors; this is its fast accept): an exact list of tools made of exact dicts, lists and
 *   strs where the walk reads (keys: strs, or ints, floats, bools and None passed over), with each rule of
 *   the walk's. False where the walk refuses the schema, and wherever it might run code or read a
 *   lookalike (a subclass, a tuple, a model): the caller then walks it. `kinds` is schema.py's table of
 *   the keywords read (keyword -> what it holds: the codes below), max_depth its MAX_SCHEMA_DEPTH. The
 *   recursion is one level per subschema depth and stops past max_depth (at most 256); the GIL is held,
 *   nothing is allocated and no Python code runs (only exact strs are compared and looked up).
 *
 * same_value(a, b) -> bool
 *   Whether a and b are the same plain value, type for type: exact dicts (items in the same order),
 *   lists, tuples, strs, ints, floats (with the same bits: 0.0 is not -0.0, a NaN is itself), bools and
 *   None, the same types everywhere (1 is not True, [] is not ()): what marshal writes the same, but for
 *   which strs are shared.
 *   False where either holds anything else (a subclass, a model) or nests deeper than VALUE_MAX_DEPTH (a
 *   list that holds itself). No Python code runs (exact ints are compared in C) and nothing is allocated.
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

/* ---- schema_ok: the fast accept of toklane.parsing.schema's walk (see the header) ---- */

/* What a keyword holds, as schema.py's table gives it: the codes of _KIND, then type, enum and required. */
enum { KW_ONE, KW_ITEMS, KW_LIST, KW_MAP, KW_TYPE, KW_ENUM, KW_REQUIRED };

/* A key (of a schema, a tool, a function) the walk reads past without running code: it hashes and compares
 * as a built-in (a str key is read as a keyword instead). */
static inline int
plain_key(PyObject *key)
{
    return PyLong_CheckExact(key) || PyFloat_CheckExact(key) || PyBool_Check(key) || key == Py_None;
}

/* An exact list of exact strs (empty: `empty`). */
static int
str_list(PyObject *value, int empty)
{
    if (!PyList_CheckExact(value) || (!empty && PyList_GET_SIZE(value) == 0))
        return 0;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(value); k++)
        if (!PyUnicode_CheckExact(PyList_GET_ITEM(value, k)))
            return 0;
    return 1;
}

static int schema_node(PyObject *node, int depth, PyObject *kinds, int max_depth);

/* A subschema at depth: true / false, or an exact dict that passes. */
static inline int
schema_sub(PyObject *sub, int depth, PyObject *kinds, int max_depth)
{
    if (PyDict_CheckExact(sub))
        return schema_node(sub, depth, kinds, max_depth);
    return PyBool_Check(sub);
}

/* An exact list of subschemas at depth. */
static int
schema_subs(PyObject *list, int depth, PyObject *kinds, int max_depth)
{
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(list); k++) {
        int r = schema_sub(PyList_GET_ITEM(list, k), depth, kinds, max_depth);
        if (r <= 0)
            return r;
    }
    return 1;
}

/* 1 where the walk passes the schema `node` (an exact dict) at depth, 0 where it refuses it or might, -1 on an
 * error (none is expected: only exact strs are looked up, in the table's exact-str keys). Recursion: one level
 * per depth, and none past max_depth. */
static int
schema_node(PyObject *node, int depth, PyObject *kinds, int max_depth)
{
    if (depth > max_depth)
        return 0;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(node, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key)) {
            if (plain_key(key))
                continue;
            return 0;
        }
        PyObject *code = PyDict_GetItemWithError(kinds, key);
        if (code == NULL) {
            if (PyErr_Occurred())
                return -1;
            continue; /* not a keyword the walk reads */
        }
        int r = 1;
        switch (PyLong_AsLong(code)) {
        case KW_TYPE:
            r = value == Py_None || PyUnicode_CheckExact(value) || str_list(value, 0);
            break;
        case KW_ENUM:
            r = value == Py_None || PyList_CheckExact(value);
            break;
        case KW_REQUIRED:
            r = value == Py_None || str_list(value, 1);
            break;
        case KW_ONE: /* null too is read as the subschema */
            r = schema_sub(value, depth + 1, kinds, max_depth);
            break;
        case KW_ITEMS:
            if (value != Py_None)
                r = PyList_CheckExact(value) ? schema_subs(value, depth + 1, kinds, max_depth)
                                             : schema_sub(value, depth + 1, kinds, max_depth);
            break;
        case KW_LIST:
            if (value != Py_None)
                r = PyList_CheckExact(value) ? schema_subs(value, depth + 1, kinds, max_depth) : 0;
            break;
        case KW_MAP:
            if (value != Py_None) {
                if (!PyDict_CheckExact(value))
                    return 0;
                Py_ssize_t at = 0;
                PyObject *name, *sub;
                while (r > 0 && PyDict_Next(value, &at, &name, &sub))
                    r = PyUnicode_CheckExact(name) ? schema_sub(sub, depth + 1, kinds, max_depth) : 0;
            }
            break;
        default:
            if (PyErr_Occurred())
                return -1;
        }
        if (r <= 0)
            return r;
    }
    return 1;
}

/* The value under each of the `count` keys of an exact dict (NULL where absent): 1, or 0 where a key is one
 * the walk might run code for. */
static int
read_keys(PyObject *dict, const char *const *names, PyObject **found, int count)
{
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    for (int k = 0; k < count; k++)
        found[k] = NULL;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key)) {
            if (plain_key(key))
                continue;
            return 0;
        }
        for (int k = 0; k < count; k++)
            if (PyUnicode_CompareWithASCIIString(key, names[k]) == 0)
                found[k] = value;
    }
    return 1;
}

/* One tool: 1 where the walk passes it, 0 where it refuses it or might, -1 on an error. */
static int
schema_tool(PyObject *tool, PyObject *kinds, int max_depth)
{
    static const char *const tool_keys[] = {"function", "type"}, *const fn_keys[] = {"name", "parameters"};
    PyObject *found[2], *fn;
    if (!PyDict_CheckExact(tool) || !read_keys(tool, tool_keys, found, 2))
        return 0;
    if (found[0] != NULL) {
        fn = found[0];
        if (!PyDict_CheckExact(fn) || !read_keys(fn, fn_keys, found, 2))
            return 0;
    } else {
        PyObject *type = found[1];
        if (type != NULL) {
            if (PyUnicode_CheckExact(type)) {
                if (PyUnicode_CompareWithASCIIString(type, "function") != 0)
                    return 1; /* a built-in tool: nothing to type */
            } else { /* != "function" without running code: passed over as a built-in tool */
                return type == Py_None || PyBool_Check(type) || PyLong_CheckExact(type) || PyFloat_CheckExact(type)
                       || PyList_CheckExact(type) || PyDict_CheckExact(type);
            }
        }
        fn = tool;
        if (!read_keys(fn, fn_keys, found, 2))
            return 0;
    }
    PyObject *name = found[0], *params = found[1];
    if (name == NULL || !PyUnicode_CheckExact(name) || PyUnicode_GetLength(name) == 0)
        return 0;
    if (params == NULL || params == Py_None)
        return 1;
    return PyDict_CheckExact(params) ? schema_node(params, 0, kinds, max_depth) : 0;
}

static PyObject *
schema_ok(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyDict_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "schema_ok expects (tools, kinds: dict, max_depth)");
        return NULL;
    }
    PyObject *tools = args[0], *kinds = args[1];
    long max_depth = PyLong_AsLong(args[2]);
    if (max_depth == -1 && PyErr_Occurred())
        return NULL;
    if (max_depth < 0 || max_depth > 256) {
        PyErr_Format(PyExc_ValueError, "schema_ok: max_depth %ld out of range (0..256)", max_depth);
        return NULL;
    }
    if (!PyList_CheckExact(tools))
        Py_RETURN_FALSE;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(tools); k++) {
        int r = schema_tool(PyList_GET_ITEM(tools, k), kinds, (int)max_depth);
        if (r < 0)
            return NULL;
        if (r == 0)
            Py_RETURN_FALSE;
    }
    Py_RETURN_TRUE;
}

/* ---- same_value: a plain value compared type for type (see the header) ---- */

#define VALUE_MAX_DEPTH 512

/* Whether size bytes at p and q are the same (a schema's strs are short: no call into the C library). */
static inline int
same_bytes(const unsigned char *p, const unsigned char *q, size_t size)
{
    size_t i = 0;
    uint64_t x, y;
    for (; i + 8 <= size; i += 8) {
        memcpy(&x, p + i, 8);
        memcpy(&y, q + i, 8);
        if (x != y)
            return 0;
    }
    for (; i < size; i++)
        if (p[i] != q[i])
            return 0;
    return 1;
}

/* Whether two exact strs are the same: 1, 0, or -1 on an error. */
static inline int
same_str(PyObject *a, PyObject *b)
{
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(a) < 0 || PyUnicode_READY(b) < 0)
        return -1;
#endif
    Py_ssize_t n = PyUnicode_GET_LENGTH(a);
    int kind = PyUnicode_KIND(a);
    return a == b || (n == PyUnicode_GET_LENGTH(b) && kind == PyUnicode_KIND(b) &&
                      same_bytes(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)n * (size_t)kind));
}

/* 1 where a and b are the same plain value, type for type, 0 where not (or either is not plain, or nests
 * past the depth), -1 on an error. */
static int
value_same(PyObject *a, PyObject *b, int depth)
{
    PyTypeObject *type = Py_TYPE(a);
    if (type != Py_TYPE(b))
        return 0;
    if (type == &PyUnicode_Type)
        return same_str(a, b);
    if (a == Py_None || type == &PyBool_Type)
        return a == b;
    if (type == &PyLong_Type)
        return PyObject_RichCompareBool(a, b, Py_EQ); /* (exact ints: no Python code) */
    if (type == &PyFloat_Type) {
        double x = PyFloat_AS_DOUBLE(a), y = PyFloat_AS_DOUBLE(b);
        return memcmp(&x, &y, sizeof x) == 0;
    }
    if (depth >= VALUE_MAX_DEPTH)
        return 0;
    if (type == &PyList_Type || type == &PyTuple_Type) { /* (the Fast macros read both kinds' items) */
        Py_ssize_t n = PySequence_Fast_GET_SIZE(a);
        if (n != PySequence_Fast_GET_SIZE(b))
            return 0;
        PyObject **x = PySequence_Fast_ITEMS(a), **y = PySequence_Fast_ITEMS(b);
        for (Py_ssize_t k = 0; k < n; k++) {
            int r = value_same(x[k], y[k], depth + 1);
            if (r <= 0)
                return r;
        }
        return 1;
    }
    if (type == &PyDict_Type) {
        if (PyDict_GET_SIZE(a) != PyDict_GET_SIZE(b))
            return 0;
        Py_ssize_t i = 0, j = 0;
        PyObject *ka, *va, *kb, *vb;
        while (PyDict_Next(a, &i, &ka, &va)) {
            if (!PyDict_Next(b, &j, &kb, &vb))
                return 0;
            int r = PyUnicode_CheckExact(ka) && PyUnicode_CheckExact(kb) ? same_str(ka, kb) /* (most keys) */
                                                                         : value_same(ka, kb, depth + 1);
            if (r > 0)
                r = value_same(va, vb, depth + 1);
            if (r <= 0)
                return r;
        }
        return 1;
    }
    return 0;
}

static PyObject *
same_value(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "same_value expects (a, b)");
        return NULL;
    }
    int r = value_same(args[0], args[1], 0);
    if (r < 0)
        return NULL;
    return PyBool_FromLong(r);
}

static PyMethodDef methods[] = {
    {"value_end", (PyCFunction)(void (*)(void))value_end, METH_FASTCALL,
     "value_end(s, i) -> end of the valid JSON value at s[i], or -1 - (where it fails)"},
    {"string_end", (PyCFunction)(void (*)(void))string_end, METH_FASTCALL,
     "string_end(s, i) -> end of the valid JSON string whose body starts at s[i], or -1 - (where it fails)"},
    {"members", (PyCFunction)(void (*)(void))members, METH_FASTCALL,
     "members(s, i, size) -> (end, [start, value_start, stop, ...]): the container at s[i] in spans of ~size"},
    {"schema_ok", (PyCFunction)(void (*)(void))schema_ok, METH_FASTCALL,
     "schema_ok(tools, kinds, max_depth) -> True only where toklane.parsing.schema's walk accepts tools"},
    {"same_value", (PyCFunction)(void (*)(void))same_value, METH_FASTCALL,
     "same_value(a, b) -> whether a and b are the same plain value, type for type"},
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
