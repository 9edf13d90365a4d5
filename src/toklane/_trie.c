/* toklane._trie: every occurrence of a set of fixed strings in a whole text, in one pass (the
 * compiled half of toklane.streammatch.Automaton.find_all, which holds the contract and the
 * pure-Python scan).
 *
 * find_all(text, nodes, edges, leads) -> list of (pattern, start, end)
 *   text: str (any kind) or bytes. nodes: 12-byte Node entries (native byte order), the root
 *   first; edges: 8-byte Edge entries, each node's children sorted by symbol. leads: a tuple of
 *   the symbols patterns start with (at most MAX_LEADS), or () to try every position.
 * The scan: at each position, walk the trie along the text as far as it goes; the last terminal
 *   passed is a hit (the longest pattern starting there), and the scan goes on at its end;
 *   otherwise at the next position: leftmost start, longest there -- what the trie regex's search
 *   finds. A trie whose terminals end their branch (streammatch.Automaton's: the shortest pattern
 *   of a path, as its DFA reports it) gives the shortest. With leads, positions jump between their
 *   occurrences (PyUnicode_FindChar / memchr, the next of each kept). Every index read from nodes
 *   and edges is bounds-checked, whatever they hold (a bad table raises ValueError). No Python code
 *   runs during the scan but the allocation of hits, and the text and tables are immutable.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    uint32_t first; /* its children: edges[first .. first + count) */
    uint32_t count;
    int32_t terminal; /* the pattern that ends here, or -1 */
} Node;

typedef struct {
    uint32_t symbol;
    uint32_t child;
} Edge;

static inline uint32_t
symbol_at(int kind, const void *data, Py_ssize_t i)
{
    if (kind == PyUnicode_1BYTE_KIND)
        return ((const Py_UCS1 *)data)[i];
    if (kind == PyUnicode_2BYTE_KIND)
        return ((const Py_UCS2 *)data)[i];
    return ((const Py_UCS4 *)data)[i];
}

/* The child of node for symbol (binary search over its sorted edges), -1 if none, -2 if the tables
 * are out of bounds. */
static inline int64_t
child_of(const Node *node, const Edge *edges, uint32_t n_edges, uint32_t n_nodes, uint32_t symbol)
{
    uint64_t lo = node->first, hi = (uint64_t)node->first + node->count;
    if (hi > n_edges)
        return -2;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        uint32_t s = edges[mid].symbol;
        if (s == symbol)
            return edges[mid].child < n_nodes ? (int64_t)edges[mid].child : -2;
        if (s < symbol)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int
append_hit(PyObject *hits, int32_t pattern, Py_ssize_t start, Py_ssize_t end)
{
    PyObject *hit = Py_BuildValue("(inn)", (int)pattern, start, end);
    if (hit == NULL)
        return -1;
    int bad = PyList_Append(hits, hit);
    Py_DECREF(hit);
    return bad;
}

#define MAX_LEADS 8

/* The next occurrence of symbol in text at or after i, -1 if none, -2 on error. */
static Py_ssize_t
next_of(PyObject *text, int is_str, const void *data, Py_ssize_t n, Py_ssize_t i, long symbol)
{
    if (i >= n)
        return -1;
    if (is_str)
        return symbol > 0x10FFFF ? -1 : PyUnicode_FindChar(text, (Py_UCS4)symbol, i, n, 1);
    const char *at = symbol > 0xFF ? NULL : memchr((const char *)data + i, (int)symbol, (size_t)(n - i));
    return at == NULL ? -1 : at - (const char *)data;
}

static PyObject *
trie_find_all(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "find_all(text, nodes, edges, leads) takes 4 arguments");
        return NULL;
    }
    PyObject *text = args[0], *nodes_obj = args[1], *edges_obj = args[2], *leads_obj = args[3];
    if (!PyTuple_CheckExact(leads_obj) || PyTuple_GET_SIZE(leads_obj) > MAX_LEADS) {
        PyErr_SetString(PyExc_TypeError, "find_all: leads must be a tuple of at most 8 symbols");
        return NULL;
    }
    int n_leads = (int)PyTuple_GET_SIZE(leads_obj);
    long leads[MAX_LEADS];
    for (int k = 0; k < n_leads; k++) {
        leads[k] = PyLong_AsLong(PyTuple_GET_ITEM(leads_obj, k));
        if (leads[k] == -1 && PyErr_Occurred())
            return NULL;
    }
    if (!PyBytes_CheckExact(nodes_obj) || !PyBytes_CheckExact(edges_obj) ||
        PyBytes_GET_SIZE(nodes_obj) % sizeof(Node) || PyBytes_GET_SIZE(edges_obj) % sizeof(Edge) ||
        PyBytes_GET_SIZE(nodes_obj) == 0) {
        PyErr_SetString(PyExc_TypeError, "find_all: nodes must be bytes of 12-byte nodes, edges of 8-byte edges");
        return NULL;
    }
    const Node *nodes = (const Node *)PyBytes_AS_STRING(nodes_obj);
    const Edge *edges = (const Edge *)PyBytes_AS_STRING(edges_obj);
    uint64_t n_nodes = (uint64_t)PyBytes_GET_SIZE(nodes_obj) / sizeof(Node);
    uint64_t n_edges = (uint64_t)PyBytes_GET_SIZE(edges_obj) / sizeof(Edge);
    if (n_nodes > UINT32_MAX || n_edges > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "find_all: tables too large");
        return NULL;
    }
    int kind;
    const void *data;
    Py_ssize_t n;
    int is_str = PyUnicode_Check(text);
    if (is_str) {
        if (PyUnicode_READY(text) < 0) /* (a legacy str of Python 3.11; a no-op from 3.12) */
            return NULL;
        kind = PyUnicode_KIND(text);
        data = PyUnicode_DATA(text);
        n = PyUnicode_GET_LENGTH(text);
    }
    else if (PyBytes_Check(text)) {
        kind = PyUnicode_1BYTE_KIND;
        data = PyBytes_AS_STRING(text);
        n = PyBytes_GET_SIZE(text);
    }
    else {
        PyErr_SetString(PyExc_TypeError, "find_all: text must be str or bytes");
        return NULL;
    }
    PyObject *hits = PyList_New(0);
    if (hits == NULL)
        return NULL;
    Py_ssize_t next[MAX_LEADS]; /* each lead's next occurrence at or after i (-1: none left) */
    for (int k = 0; k < n_leads; k++)
        if ((next[k] = next_of(text, is_str, data, n, 0, leads[k])) == -2)
            goto fail;
    Py_ssize_t i = 0;
    while (i < n) {
        if (n_leads) { /* the nearest lead's occurrence */
            Py_ssize_t best = -1;
            for (int k = 0; k < n_leads; k++) {
                if (next[k] >= 0 && next[k] < i && (next[k] = next_of(text, is_str, data, n, i, leads[k])) == -2)
                    goto fail;
                if (next[k] >= 0 && (best < 0 || next[k] < best))
                    best = next[k];
            }
            if (best < 0)
                break;
            i = best;
        }
        const Node *node = &nodes[0];
        Py_ssize_t j = i, end = -1;
        int32_t found = -1;
        for (;;) {
            if (node->terminal >= 0 && j > i) {
                found = node->terminal;
                end = j;
            }
            if (node->count == 0 || j >= n)
                break;
            int64_t c = child_of(node, edges, (uint32_t)n_edges, (uint32_t)n_nodes, symbol_at(kind, data, j));
            if (c == -2)
                goto bad_table;
            if (c < 0)
                break;
            node = &nodes[c];
            j++;
        }
        if (found >= 0) {
            if (append_hit(hits, found, i, end) < 0)
                goto fail;
            i = end;
        }
        else
            i++;
    }
    return hits;

bad_table:
    PyErr_SetString(PyExc_ValueError, "find_all: an edge or a child out of the tables' bounds");
fail:
    Py_DECREF(hits);
    return NULL;
}

static PyMethodDef trie_methods[] = {
    {"find_all", (PyCFunction)(void (*)(void))trie_find_all, METH_FASTCALL,
     "find_all(text, nodes, edges, leads) -> [(pattern, start, end), ...]"},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot trie_slots[] = {
#if PY_VERSION_HEX >= 0x030C0000
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
    {0, NULL},
};

static struct PyModuleDef trie_module = {
    PyModuleDef_HEAD_INIT, "toklane._trie", "Every occurrence of a set of fixed strings in one pass (see toklane.streammatch).",
    0, trie_methods, trie_slots, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__trie(void)
{
    return PyModuleDef_Init(&trie_module);
}
