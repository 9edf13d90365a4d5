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
 *
 * split_plain(nodes, edges, leads, roles, in_reasoning, may_open, make, text[, starts, patterns])
 *     -> make(reasoning, content, []) or None
 *   The same scan over a whole output, read as parsing.machine.ThinkToolsParser._whole_plain reads a
 *   reasoning-only output of a usual shape (roles: per pattern, 1 a reasoning start marker, 2 its
 *   end marker, 0 any other): [whitespace, start marker] reasoning [end marker content], or content
 *   alone where the output starts outside reasoning (in_reasoning false) and opens none (may_open:
 *   whether a start marker first thing opens it there). Reasoning is stripped of " \t\n\r" at both
 *   ends, content at its start, and an empty one is None; content alone is (None, text), reasoning
 *   cut short (None content); make(reasoning, content, []) is returned (parsing's ParseResult).
 *   None for anything else -- another marker, a marker after the end marker, a repeated start
 *   marker, text before the start marker -- which the reading from hits (find_all) then reads.
 *   starts, patterns: for a text read from token ids (gather.text), where each marker id's text
 *   starts in it and the pattern it is; the hits must be exactly those (else None: ordinary
 *   tokens spell a marker, which from ids is text).
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

/* (the tuple built item by item: Py_BuildValue's format string cost more than the rest of a short
 * output's scan) */
static int
append_hit(PyObject *hits, int32_t pattern, Py_ssize_t start, Py_ssize_t end)
{
    PyObject *hit = PyTuple_New(3);
    if (hit == NULL)
        return -1;
    PyObject *values[3] = {PyLong_FromLong(pattern), PyLong_FromSsize_t(start), PyLong_FromSsize_t(end)};
    for (int k = 0; k < 3; k++) {
        if (values[k] == NULL) {
            for (int m = k + 1; m < 3; m++)
                Py_XDECREF(values[m]);
            Py_DECREF(hit);
            return -1;
        }
        PyTuple_SET_ITEM(hit, k, values[k]);
    }
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

/* A scan of one text (scan_init, then scan_next for each hit in order). */
typedef struct {
    const char *name; /* the function, for its errors */
    PyObject *text;
    int is_str, kind, n_leads;
    const void *data;
    Py_ssize_t n, i;
    const Node *nodes;
    const Edge *edges;
    uint32_t n_nodes, n_edges;
    long leads[MAX_LEADS];
    Py_ssize_t next[MAX_LEADS]; /* each lead's next occurrence at or after i (-1: none left) */
} Scan;

/* Checks the tables and the text (name: the function, for its errors): 0, or -1 with an exception. */
static int
scan_init(Scan *s, const char *name, PyObject *text, PyObject *nodes_obj, PyObject *edges_obj, PyObject *leads_obj)
{
    if (!PyTuple_CheckExact(leads_obj) || PyTuple_GET_SIZE(leads_obj) > MAX_LEADS) {
        PyErr_Format(PyExc_TypeError, "%s: leads must be a tuple of at most 8 symbols", name);
        return -1;
    }
    s->n_leads = (int)PyTuple_GET_SIZE(leads_obj);
    for (int k = 0; k < s->n_leads; k++) {
        s->leads[k] = PyLong_AsLong(PyTuple_GET_ITEM(leads_obj, k));
        if (s->leads[k] == -1 && PyErr_Occurred())
            return -1;
    }
    if (!PyBytes_CheckExact(nodes_obj) || !PyBytes_CheckExact(edges_obj) ||
        PyBytes_GET_SIZE(nodes_obj) % sizeof(Node) || PyBytes_GET_SIZE(edges_obj) % sizeof(Edge) ||
        PyBytes_GET_SIZE(nodes_obj) == 0) {
        PyErr_Format(PyExc_TypeError, "%s: nodes must be bytes of 12-byte nodes, edges of 8-byte edges", name);
        return -1;
    }
    uint64_t n_nodes = (uint64_t)PyBytes_GET_SIZE(nodes_obj) / sizeof(Node);
    uint64_t n_edges = (uint64_t)PyBytes_GET_SIZE(edges_obj) / sizeof(Edge);
    if (n_nodes > UINT32_MAX || n_edges > UINT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: tables too large", name);
        return -1;
    }
    s->name = name;
    s->nodes = (const Node *)PyBytes_AS_STRING(nodes_obj);
    s->edges = (const Edge *)PyBytes_AS_STRING(edges_obj);
    s->n_nodes = (uint32_t)n_nodes;
    s->n_edges = (uint32_t)n_edges;
    s->text = text;
    s->is_str = PyUnicode_Check(text);
    if (s->is_str) {
        if (PyUnicode_READY(text) < 0) /* (a legacy str of Python 3.11; a no-op from 3.12) */
            return -1;
        s->kind = PyUnicode_KIND(text);
        s->data = PyUnicode_DATA(text);
        s->n = PyUnicode_GET_LENGTH(text);
    }
    else if (PyBytes_Check(text)) {
        s->kind = PyUnicode_1BYTE_KIND;
        s->data = PyBytes_AS_STRING(text);
        s->n = PyBytes_GET_SIZE(text);
    }
    else {
        PyErr_Format(PyExc_TypeError, "%s: text must be str or bytes", name);
        return -1;
    }
    s->i = 0;
    for (int k = 0; k < s->n_leads; k++)
        if ((s->next[k] = next_of(text, s->is_str, s->data, s->n, 0, s->leads[k])) == -2)
            return -1;
    return 0;
}

/* The next hit (*pattern, [*start, *end)): 1, 0 where there is none left, -1 with an exception. */
static int
scan_next(Scan *s, int32_t *pattern, Py_ssize_t *start, Py_ssize_t *end)
{
    Py_ssize_t i = s->i, n = s->n;
    while (i < n) {
        if (s->n_leads) { /* the nearest lead's occurrence */
            Py_ssize_t best = -1;
            for (int k = 0; k < s->n_leads; k++) {
                Py_ssize_t *next = &s->next[k];
                if (*next >= 0 && *next < i && (*next = next_of(s->text, s->is_str, s->data, n, i, s->leads[k])) == -2)
                    return -1;
                if (*next >= 0 && (best < 0 || *next < best))
                    best = *next;
            }
            if (best < 0)
                break;
            i = best;
        }
        const Node *node = &s->nodes[0];
        Py_ssize_t j = i, last = -1;
        int32_t found = -1;
        for (;;) {
            if (node->terminal >= 0 && j > i) {
                found = node->terminal;
                last = j;
            }
            if (node->count == 0 || j >= n)
                break;
            int64_t c = child_of(node, s->edges, s->n_edges, s->n_nodes, symbol_at(s->kind, s->data, j));
            if (c == -2) {
                PyErr_Format(PyExc_ValueError, "%s: an edge or a child out of the tables' bounds", s->name);
                return -1;
            }
            if (c < 0)
                break;
            node = &s->nodes[c];
            j++;
        }
        if (found >= 0) {
            *pattern = found;
            *start = i;
            *end = last;
            s->i = last;
            return 1;
        }
        i++;
    }
    s->i = n;
    return 0;
}

static PyObject *
trie_find_all(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "find_all(text, nodes, edges, leads) takes 4 arguments");
        return NULL;
    }
    Scan s;
    if (scan_init(&s, "find_all", args[0], args[1], args[2], args[3]) < 0)
        return NULL;
    PyObject *hits = PyList_New(0);
    if (hits == NULL)
        return NULL;
    int32_t pattern;
    Py_ssize_t start, end;
    int got;
    while ((got = scan_next(&s, &pattern, &start, &end)) > 0)
        if (append_hit(hits, pattern, start, end) < 0) {
            got = -1;
            break;
        }
    if (got < 0)
        Py_CLEAR(hits);
    return hits;
}

/* ---- split_plain: a reasoning-only output of a usual shape, cut in one call ---- */

#define ROLE_START 1
#define ROLE_END 2

/* Whether code point c is whitespace of a parser's stripping (" \t\n\r": parsing.block.WS). */
static inline int
is_ws(Py_UCS4 c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* text[a:b] stripped of that whitespace (at the start only where !right), as a new str. */
static PyObject *
stripped(const Scan *s, Py_ssize_t a, Py_ssize_t b, int right)
{
    while (a < b && is_ws(PyUnicode_READ(s->kind, s->data, a)))
        a++;
    while (right && b > a && is_ws(PyUnicode_READ(s->kind, s->data, b - 1)))
        b--;
    return PyUnicode_Substring(s->text, a, b);
}

/* Whether text[a:b] is whitespace only. */
static int
all_ws(const Scan *s, Py_ssize_t a, Py_ssize_t b)
{
    for (; a < b; a++)
        if (!is_ws(PyUnicode_READ(s->kind, s->data, a)))
            return 0;
    return 1;
}

/* make(reasoning, content, []) -- each a str, an empty one as None -- from two new references (stolen). */
static PyObject *
made(PyObject *make, PyObject *reasoning, PyObject *content)
{
    PyObject *parts[3] = {reasoning, content, PyList_New(0)};
    PyObject *result = NULL;
    if (parts[2] != NULL) {
        for (int k = 0; k < 2; k++)
            if (PyUnicode_Check(parts[k]) && PyUnicode_GET_LENGTH(parts[k]) == 0)
                Py_SETREF(parts[k], Py_NewRef(Py_None));
        result = PyObject_Vectorcall(make, parts, 3, NULL);
    }
    for (int k = 0; k < 3; k++)
        Py_XDECREF(parts[k]);
    return result;
}

static PyObject *
trie_split_plain(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8 && nargs != 10) {
        PyErr_SetString(PyExc_TypeError, "split_plain(nodes, edges, leads, roles, in_reasoning, may_open, make, text"
                                         "[, starts, patterns]) takes 8 or 10 arguments");
        return NULL;
    }
    PyObject *roles = args[3], *make = args[6], *text = args[7], *starts = nargs == 10 ? args[8] : NULL;
    PyObject *patterns = nargs == 10 ? args[9] : NULL;
    if (!PyBytes_CheckExact(roles) || !PyUnicode_CheckExact(text) || !PyCallable_Check(make) ||
        (starts != NULL && (!PyList_CheckExact(starts) || !PyList_CheckExact(patterns)))) {
        PyErr_SetString(PyExc_TypeError,
                        "split_plain: roles must be bytes, make callable, text a str, starts and patterns lists");
        return NULL;
    }
    int in_reasoning = PyObject_IsTrue(args[4]), may_open = PyObject_IsTrue(args[5]);
    if (in_reasoning < 0 || may_open < 0)
        return NULL;
    Scan s;
    if (scan_init(&s, "split_plain", text, args[0], args[1], args[2]) < 0)
        return NULL;
    const unsigned char *role = (const unsigned char *)PyBytes_AS_STRING(roles);
    Py_ssize_t n_roles = PyBytes_GET_SIZE(roles);
    /* Up to three hits: a start marker, the end marker, and a third (there is none in this shape). */
    int32_t kind[3];
    Py_ssize_t at[3], to[3];
    int hits = 0, got = 0;
    while (hits < 3 && (got = scan_next(&s, &kind[hits], &at[hits], &to[hits])) > 0) {
        if (kind[hits] < 0 || kind[hits] >= n_roles || !role[kind[hits]])
            Py_RETURN_NONE; /* (another marker: the general reading) */
        hits++;
    }
    if (hits < 3 && got < 0)
        return NULL;
    if (hits == 3)
        Py_RETURN_NONE;
    if (starts != NULL) { /* (a text read from ids: its hits must be its marker ids, each where it was put) */
        if (PyList_GET_SIZE(starts) != hits || PyList_GET_SIZE(patterns) != hits)
            Py_RETURN_NONE;
        for (int j = 0; j < hits; j++) {
            Py_ssize_t where = PyLong_AsSsize_t(PyList_GET_ITEM(starts, j));
            long pattern = PyLong_AsLong(PyList_GET_ITEM(patterns, j));
            if (PyErr_Occurred())
                return NULL;
            if (where != at[j] || pattern != kind[j])
                Py_RETURN_NONE;
        }
    }
    int opened = hits > 0 && role[kind[0]] == ROLE_START; /* the model opened its reasoning itself */
    if (opened && hits == 2 && role[kind[1]] == ROLE_START)
        Py_RETURN_NONE; /* (start markers repeated: the general reading joins what is between) */
    int close = opened ? 1 : 0; /* the hit that must end reasoning, if any */
    if (!in_reasoning) {
        if (!opened) {
            if (hits)
                Py_RETURN_NONE;
            return made(make, Py_NewRef(Py_None), Py_NewRef(text)); /* content alone */
        }
        if (!may_open || !all_ws(&s, 0, at[0]))
            Py_RETURN_NONE;
    }
    else if (opened && !all_ws(&s, 0, at[0]))
        Py_RETURN_NONE; /* (text before the start marker is reasoning too: the general reading) */
    if (hits > close + 1 || (hits > close && role[kind[close]] != ROLE_END))
        Py_RETURN_NONE; /* (a marker after the end marker, or reasoning closed by no end marker) */
    Py_ssize_t from = opened ? to[0] : 0, until = hits > close ? at[close] : s.n;
    PyObject *reasoning = stripped(&s, from, until, 1);
    if (reasoning == NULL)
        return NULL;
    /* (reasoning to the end -- cut short -- leaves no content) */
    PyObject *content = hits > close ? stripped(&s, to[close], s.n, 0) : Py_NewRef(Py_None);
    if (content == NULL) {
        Py_DECREF(reasoning);
        return NULL;
    }
    return made(make, reasoning, content);
}

static PyMethodDef trie_methods[] = {
    {"find_all", (PyCFunction)(void (*)(void))trie_find_all, METH_FASTCALL,
     "find_all(text, nodes, edges, leads) -> [(pattern, start, end), ...]"},
    {"split_plain", (PyCFunction)(void (*)(void))trie_split_plain, METH_FASTCALL,
     "split_plain(nodes, edges, leads, roles, in_reasoning, may_open, make, text[, starts, patterns])"
     " -> make(reasoning, content, []) or None"},
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
