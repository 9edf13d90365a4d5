/* The JSON readers of toklane._json for one str kind: CHAR (the code unit) and SUFFIX (the name
 * suffix) are defined by the includer. Results: an end index (>= 0), or -3 - k where the reading
 * failed at index k, or -2 (out of memory). */

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define FAIL(k) do { result = -3 - (k); goto done; } while (0)

/* The first index at or after i (before n) of a quote, a backslash or a control character (n if none). */
static inline Py_ssize_t
CAT(plain_run, SUFFIX)(const CHAR *s, Py_ssize_t i, Py_ssize_t n)
{
#if defined(__SSE2__)
    enum { STEP = 16 / sizeof(CHAR) };
    __m128i quote, backslash, high, zero = _mm_setzero_si128();
    if (sizeof(CHAR) == 1) {
        quote = _mm_set1_epi8('"');
        backslash = _mm_set1_epi8('\\');
        high = _mm_set1_epi8((char)0xE0);
    } else if (sizeof(CHAR) == 2) {
        quote = _mm_set1_epi16('"');
        backslash = _mm_set1_epi16('\\');
        high = _mm_set1_epi16((short)0xFFE0);
    } else {
        quote = _mm_set1_epi32('"');
        backslash = _mm_set1_epi32('\\');
        high = _mm_set1_epi32((int)0xFFFFFFE0);
    }
    while (i + STEP <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i)), eq_q, eq_b, ctl;
        if (sizeof(CHAR) == 1) {
            eq_q = _mm_cmpeq_epi8(v, quote);
            eq_b = _mm_cmpeq_epi8(v, backslash);
            ctl = _mm_cmpeq_epi8(_mm_and_si128(v, high), zero);
        } else if (sizeof(CHAR) == 2) {
            eq_q = _mm_cmpeq_epi16(v, quote);
            eq_b = _mm_cmpeq_epi16(v, backslash);
            ctl = _mm_cmpeq_epi16(_mm_and_si128(v, high), zero);
        } else {
            eq_q = _mm_cmpeq_epi32(v, quote);
            eq_b = _mm_cmpeq_epi32(v, backslash);
            ctl = _mm_cmpeq_epi32(_mm_and_si128(v, high), zero);
        }
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(eq_q, eq_b), ctl));
        if (mask)
            return i + (Py_ssize_t)(__builtin_ctz(mask) / sizeof(CHAR));
        i += STEP;
    }
#endif
    while (i < n && !STOPS(s[i]))
        i++;
    return i;
}

/* A string whose body starts at s[i]: the index past its closing quote (or -3 - where it fails). */
static Py_ssize_t
CAT(string, SUFFIX)(const void *data, Py_ssize_t i, Py_ssize_t n)
{
    const CHAR *s = data;
    Py_ssize_t result;
    for (;;) {
        i = CAT(plain_run, SUFFIX)(s, i, n);
        if (i >= n)
            FAIL(n);
        Py_UCS4 c = s[i];
        if (c == '"')
            return i + 1;
        if (c != '\\')
            FAIL(i); /* a control character */
        if (i + 1 >= n)
            FAIL(n);
        c = s[i + 1];
        if (c == 'u') {
            for (Py_ssize_t k = i + 2; k < i + 6; k++) {
                if (k >= n)
                    FAIL(n);
                if (!is_hex(s[k]))
                    FAIL(k);
            }
            i += 6;
        } else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't') {
            i += 2;
        } else {
            FAIL(i + 1);
        }
    }
done:
    return result;
}

static inline Py_ssize_t
CAT(skip_ws, SUFFIX)(const CHAR *s, Py_ssize_t i, Py_ssize_t n)
{
    while (i < n && is_ws(s[i]))
        i++;
    return i;
}

/* The digits from s[i]: the index past the last. */
static inline Py_ssize_t
CAT(digits, SUFFIX)(const CHAR *s, Py_ssize_t i, Py_ssize_t n)
{
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    return i;
}

/* A number at s[i] (its first character is '-' or a digit): the index past it, or -3 - where it
 * fails. At the top level (top) a fraction or exponent that does not complete is not part of it. */
static Py_ssize_t
CAT(number, SUFFIX)(const CHAR *s, Py_ssize_t i, Py_ssize_t n, int top)
{
    Py_ssize_t result;
    if (s[i] == '-') {
        i++;
        if (i >= n)
            FAIL(n);
    }
    if (s[i] == '0')
        i++;
    else if (s[i] >= '1' && s[i] <= '9')
        i = CAT(digits, SUFFIX)(s, i + 1, n);
    else
        FAIL(i);
    if (i < n && s[i] == '.') {
        if (i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
            i = CAT(digits, SUFFIX)(s, i + 2, n);
        else if (!top)
            FAIL(i + 1 < n ? i + 1 : n);
        else
            return i;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        Py_ssize_t k = i + 1;
        if (k < n && (s[k] == '+' || s[k] == '-'))
            k++;
        if (k < n && s[k] >= '0' && s[k] <= '9')
            i = CAT(digits, SUFFIX)(s, k + 1, n);
        else if (!top)
            FAIL(k < n ? k : n);
    }
    return i;
done:
    return result;
}

/* The value at s[i]: see toklane._json.value_end. */
static Py_ssize_t
CAT(value, SUFFIX)(const void *data, Py_ssize_t i, Py_ssize_t n)
{
    const CHAR *s = data;
    char small[256]; /* the open containers: 1 an object, 0 an array */
    char *stack = small;
    Py_ssize_t cap = sizeof(small), depth = 0, result, r;
    const char *word;

value: /* a value starts at s[i] */
    if (i >= n)
        FAIL(n);
    switch (s[i]) {
    case '"':
        r = CAT(string, SUFFIX)(s, i + 1, n);
        if (r < 0)
            FAIL(-3 - r);
        i = r;
        goto after;
    case '{':
    case '[':
        if (depth == cap) {
            char *grown = PyMem_RawMalloc((size_t)cap * 2);
            if (grown == NULL) {
                result = -2;
                goto done;
            }
            memcpy(grown, stack, (size_t)cap);
            if (stack != small)
                PyMem_RawFree(stack);
            stack = grown;
            cap *= 2;
        }
        stack[depth++] = s[i] == '{';
        i = CAT(skip_ws, SUFFIX)(s, i + 1, n);
        if (i >= n)
            FAIL(n);
        if (s[i] == (stack[depth - 1] ? '}' : ']')) {
            depth--;
            i++;
            goto after;
        }
        if (stack[depth - 1])
            goto key;
        goto value;
    case 't':
        word = "true";
        goto literal;
    case 'f':
        word = "false";
        goto literal;
    case 'n':
        word = "null";
        goto literal;
    default:
        if (s[i] == '-' || (s[i] >= '0' && s[i] <= '9')) {
            r = CAT(number, SUFFIX)(s, i, n, depth == 0);
            if (r < 0)
                FAIL(-3 - r);
            i = r;
            goto after;
        }
        FAIL(i);
    }

literal: /* s[i] is word[0] */
    for (const char *w = word + 1; *w; w++) {
        if (++i >= n)
            FAIL(n);
        if (s[i] != (Py_UCS4)*w)
            FAIL(i);
    }
    i++;
    goto after;

key: /* a member's key starts at s[i] (whitespace skipped) */
    if (s[i] != '"')
        FAIL(i);
    r = CAT(string, SUFFIX)(s, i + 1, n);
    if (r < 0)
        FAIL(-3 - r);
    i = CAT(skip_ws, SUFFIX)(s, r, n);
    if (i >= n)
        FAIL(n);
    if (s[i] != ':')
        FAIL(i);
    i = CAT(skip_ws, SUFFIX)(s, i + 1, n);
    goto value;

after: /* a value ended just before s[i] */
    if (depth == 0) {
        result = i;
        goto done;
    }
    i = CAT(skip_ws, SUFFIX)(s, i, n);
    if (i >= n)
        FAIL(n);
    if (s[i] == ',') {
        i = CAT(skip_ws, SUFFIX)(s, i + 1, n);
        if (i >= n)
            FAIL(n);
        if (stack[depth - 1])
            goto key;
        goto value;
    }
    if (s[i] == (stack[depth - 1] ? '}' : ']')) {
        depth--;
        i++;
        goto after;
    }
    FAIL(i);

done:
    if (stack != small)
        PyMem_RawFree(stack);
    return result;
}

/* The members of the container at s[i] ('[' or '{'): see toklane._json.members. Each span goes to out
 * as (start, value start or -1 for a run of members, end). Returns the index past the container, or -3 -
 * where it fails, or -2 (out of memory). Reads only s: safe without the GIL. */
static Py_ssize_t
CAT(members, SUFFIX)(const void *data, Py_ssize_t i, Py_ssize_t n, Py_ssize_t size, Spans *out)
{
    const CHAR *s = data;
    Py_ssize_t result, r, run = -1, last = -1;
    const int obj = s[i] == '{';
    const Py_UCS4 close = obj ? '}' : ']';
    i = CAT(skip_ws, SUFFIX)(s, i + 1, n);
    if (i >= n)
        FAIL(n);
    if (s[i] == close)
        return i + 1;
    for (;;) {
        Py_ssize_t start = i;
        if (obj) {
            if (s[i] != '"')
                FAIL(i);
            r = CAT(string, SUFFIX)(s, i + 1, n);
            if (r < 0)
                FAIL(-3 - r);
            i = CAT(skip_ws, SUFFIX)(s, r, n);
            if (i >= n)
                FAIL(n);
            if (s[i] != ':')
                FAIL(i);
            i = CAT(skip_ws, SUFFIX)(s, i + 1, n);
        }
        Py_ssize_t value_start = i;
        r = CAT(value, SUFFIX)(s, i, n);
        if (r < 0)
            return r;
        i = r;
        if (i - start >= size) { /* a big member: a span of its own */
            if ((run >= 0 && spans_push(out, run, -1, last) < 0) || spans_push(out, start, value_start, i) < 0)
                return -2;
            run = -1;
        } else {
            if (run < 0)
                run = start;
            if (i - run >= size) {
                if (spans_push(out, run, -1, i) < 0)
                    return -2;
                run = -1;
            }
        }
        last = i;
        i = CAT(skip_ws, SUFFIX)(s, i, n);
        if (i >= n)
            FAIL(n);
        if (s[i] == ',') {
            i = CAT(skip_ws, SUFFIX)(s, i + 1, n);
            if (i >= n)
                FAIL(n);
            continue;
        }
        if (s[i] != close)
            FAIL(i);
        if (run >= 0 && spans_push(out, run, -1, last) < 0)
            return -2;
        return i + 1;
    }
done:
    return result;
}

#undef CAT_
#undef CAT
#undef FAIL
