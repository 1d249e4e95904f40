/* ember's buffer pool: a NumPy data-memory handler (NEP 49) that caches large blocks.
 *
 * A block of at least `min_bytes` is rounded up to its size class (eight classes per power of
 * two, so at most 12.5% is wasted) and, when NumPy frees it, kept in that class's list instead of
 * going back to the system; the next request of the class takes the block most recently cached,
 * whose pages are already mapped. The bytes cached stay below `limit`: past it the blocks cached
 * longest ago go back to the system first. When the system refuses memory, the cache is emptied
 * and the request retried. Smaller blocks go to the handler that was current when the pool was
 * installed (NumPy's default: malloc with its own small-block cache).
 *
 * Every pool block handed out is recorded (pointer -> block) so that free and realloc recognise
 * the pool's blocks whatever size NumPy passes. One mutex guards the pool: NumPy calls a handler
 * with or without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define NPY_TARGET_VERSION NPY_1_22_API_VERSION
#include <numpy/arrayobject.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE ((size_t)4096)
#define HUGE_PAGE_FROM ((size_t)1 << 22)  /* NumPy asks for huge pages from 4 MiB on */
#define SUBCLASSES 8
#define NBUCKETS (64 * SUBCLASSES)

typedef struct block {
    void *ptr;
    size_t bytes;      /* the class size: what was allocated */
    size_t used;       /* what NumPy asked for */
    int bucket;
    struct block *prev, *next;    /* the bucket's list while cached, most recent first */
    struct block *older, *newer;  /* the cache's age list */
} block;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static size_t limit = 0, min_bytes = (size_t)1 << 18;
static size_t route_from = (size_t)1 << 18;  /* the least min_bytes ever set: free looks up from it */
static int hugepage = 0;
static size_t cached_bytes = 0, cached_blocks = 0, live_bytes = 0, live_blocks = 0;
static unsigned long long hits = 0, misses = 0, released = 0;
static block *buckets[NBUCKETS];
static block *newest = NULL, *oldest = NULL;

/* the blocks handed out: open addressing on the pointer, linear probing */
static block **table = NULL;
static size_t table_size = 0, table_used = 0;

static size_t slot_of(void *ptr, size_t mask) {
    uint64_t h = (uint64_t)(uintptr_t)ptr * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 17) & mask;
}

static int table_grow(void) {
    size_t size = table_size ? 2 * table_size : 256;
    block **fresh = calloc(size, sizeof(block *));
    if (fresh == NULL) return -1;
    for (size_t i = 0; i < table_size; i++) {
        if (table[i] == NULL) continue;
        size_t j = slot_of(table[i]->ptr, size - 1);
        while (fresh[j] != NULL) j = (j + 1) & (size - 1);
        fresh[j] = table[i];
    }
    free(table);
    table = fresh;
    table_size = size;
    return 0;
}

static int table_put(block *b) {
    if (2 * (table_used + 1) > table_size && table_grow() != 0) return -1;
    size_t mask = table_size - 1, i = slot_of(b->ptr, mask);
    while (table[i] != NULL) {
        if (table[i]->ptr == b->ptr) {  /* a stale record: the system reused the address */
            table[i] = b;
            return 0;
        }
        i = (i + 1) & mask;
    }
    table[i] = b;
    table_used++;
    return 0;
}

static block *table_take(void *ptr, int remove) {
    if (table_size == 0) return NULL;
    size_t mask = table_size - 1, i = slot_of(ptr, mask);
    while (table[i] != NULL && table[i]->ptr != ptr) i = (i + 1) & mask;
    block *found = table[i];
    if (found == NULL || !remove) return found;
    /* backward-shift deletion keeps every probe chain unbroken */
    size_t hole = i, j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (table[j] == NULL) break;
        size_t home = slot_of(table[j]->ptr, mask);
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            table[hole] = table[j];
            hole = j;
        }
    }
    table[hole] = NULL;
    table_used--;
    return found;
}

/* the size class of `size` (at least PAGE): its bucket and its bytes */
static int class_of(size_t size, size_t *bytes) {
    if (size < PAGE) size = PAGE;
    int octave = 63 - __builtin_clzll((unsigned long long)(size - 1));  /* 2^octave < size */
    size_t step = ((size_t)1 << octave) / SUBCLASSES;
    if (step < PAGE) step = PAGE;
    size_t rounded = (size + step - 1) / step * step;
    if (rounded < size) return -1;  /* overflow */
    *bytes = rounded;
    int sub = (int)((rounded - ((size_t)1 << octave) - 1) / (((size_t)1 << octave) / SUBCLASSES));
    if (sub < 0) sub = 0;
    if (sub >= SUBCLASSES) sub = SUBCLASSES - 1;
    return octave * SUBCLASSES + sub;
}

static void unlink_cached(block *b) {
    if (b->prev) b->prev->next = b->next; else buckets[b->bucket] = b->next;
    if (b->next) b->next->prev = b->prev;
    if (b->newer) b->newer->older = b->older; else newest = b->older;
    if (b->older) b->older->newer = b->newer; else oldest = b->newer;
    cached_bytes -= b->bytes;
    cached_blocks--;
}

static void cache(block *b) {
    b->prev = NULL;
    b->next = buckets[b->bucket];
    if (b->next) b->next->prev = b;
    buckets[b->bucket] = b;
    b->older = newest;
    b->newer = NULL;
    if (newest) newest->newer = b; else oldest = b;
    newest = b;
    cached_bytes += b->bytes;
    cached_blocks++;
}

/* Return cached blocks to the system, oldest first, until at most `keep` bytes stay cached;
 * called with the lock held. */
static size_t trim(size_t keep) {
    size_t freed = 0;
    while (oldest != NULL && cached_bytes > keep) {
        block *b = oldest;
        unlink_cached(b);
        freed += b->bytes;
        free(b->ptr);
        free(b);
    }
    released += freed;
    return freed;
}

static void advise(void *ptr, size_t bytes) {
#ifdef MADV_HUGEPAGE
    if (!hugepage || bytes < HUGE_PAGE_FROM) return;
    uintptr_t start = ((uintptr_t)ptr + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
    uintptr_t end = (uintptr_t)ptr + bytes;
    if (end > start) madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
    (void)ptr; (void)bytes;
#endif
}

/* A pool block of at least `size` bytes (zeroed when `zero`), or NULL. */
static void *pool_get(size_t size, int zero) {
    size_t bytes;
    int bucket = class_of(size, &bytes);
    if (bucket < 0) return NULL;
    pthread_mutex_lock(&lock);
    block *b = buckets[bucket];
    if (b != NULL) {
        unlink_cached(b);
        if (table_put(b) != 0) {
            cache(b);
            pthread_mutex_unlock(&lock);
            return NULL;
        }
        b->used = size;
        live_bytes += b->bytes;
        live_blocks++;
        hits++;
        pthread_mutex_unlock(&lock);
        if (zero) memset(b->ptr, 0, size);
        return b->ptr;
    }
    misses++;
    pthread_mutex_unlock(&lock);

    void *ptr = zero ? calloc(1, bytes) : malloc(bytes);
    if (ptr == NULL) {  /* the system is short of memory: give back what the pool holds */
        pthread_mutex_lock(&lock);
        trim(0);
        pthread_mutex_unlock(&lock);
        ptr = zero ? calloc(1, bytes) : malloc(bytes);
        if (ptr == NULL) return NULL;
    }
    advise(ptr, bytes);
    b = malloc(sizeof(block));
    if (b == NULL) {
        free(ptr);
        return NULL;
    }
    b->ptr = ptr;
    b->bytes = bytes;
    b->used = size;
    b->bucket = bucket;
    pthread_mutex_lock(&lock);
    if (table_put(b) != 0) {
        pthread_mutex_unlock(&lock);
        free(ptr);
        free(b);
        return NULL;
    }
    live_bytes += bytes;
    live_blocks++;
    pthread_mutex_unlock(&lock);
    return ptr;
}

/* Give the handed-out block `b` back: cached when it fits under the limit; lock held. */
static void pool_put(block *b) {
    live_bytes -= b->bytes;
    live_blocks--;
    if (b->bytes > limit) {
        released += b->bytes;
        free(b->ptr);
        free(b);
        return;
    }
    trim(limit - b->bytes);
    cache(b);
}

/* The handler functions; ctx is the handler that serves the small blocks. */

static PyDataMem_Handler *base_of(void *ctx) { return (PyDataMem_Handler *)ctx; }

static void *handler_malloc(void *ctx, size_t size) {
    if (size >= min_bytes) return pool_get(size, 0);
    PyDataMemAllocator *a = &base_of(ctx)->allocator;
    void *ptr = a->malloc(a->ctx, size);
    if (ptr == NULL && cached_bytes > 0) {
        pthread_mutex_lock(&lock);
        trim(0);
        pthread_mutex_unlock(&lock);
        ptr = a->malloc(a->ctx, size);
    }
    return ptr;
}

static void *handler_calloc(void *ctx, size_t nelem, size_t elsize) {
    if (elsize != 0 && nelem > SIZE_MAX / elsize) return NULL;
    size_t size = nelem * elsize;
    if (size >= min_bytes) return pool_get(size, 1);
    PyDataMemAllocator *a = &base_of(ctx)->allocator;
    void *ptr = a->calloc(a->ctx, nelem, elsize);
    if (ptr == NULL && cached_bytes > 0) {
        pthread_mutex_lock(&lock);
        trim(0);
        pthread_mutex_unlock(&lock);
        ptr = a->calloc(a->ctx, nelem, elsize);
    }
    return ptr;
}

static void handler_free(void *ctx, void *ptr, size_t size) {
    if (ptr == NULL) return;
    if (size >= route_from) {
        pthread_mutex_lock(&lock);
        block *b = table_take(ptr, 1);
        if (b != NULL) {
            pool_put(b);
            pthread_mutex_unlock(&lock);
            return;
        }
        pthread_mutex_unlock(&lock);
    }
    PyDataMemAllocator *a = &base_of(ctx)->allocator;
    a->free(a->ctx, ptr, size);
}

static void *handler_realloc(void *ctx, void *ptr, size_t size) {
    PyDataMemAllocator *a = &base_of(ctx)->allocator;
    if (ptr == NULL) return handler_malloc(ctx, size);
    if (size == 0) size = 1;
    pthread_mutex_lock(&lock);
    block *b = table_take(ptr, 0);
    size_t bytes = 0;
    if (b != NULL && size >= min_bytes && class_of(size, &bytes) == b->bucket) {
        b->used = size;  /* it still fits its class */
        pthread_mutex_unlock(&lock);
        return ptr;
    }
    size_t used = b != NULL ? b->used : 0;
    pthread_mutex_unlock(&lock);
    if (b == NULL) return a->realloc(a->ctx, ptr, size);  /* one of the small blocks */
    void *moved = handler_malloc(ctx, size);
    if (moved == NULL) return NULL;
    memcpy(moved, ptr, used < size ? used : size);
    pthread_mutex_lock(&lock);
    b = table_take(ptr, 1);
    if (b != NULL) pool_put(b);
    pthread_mutex_unlock(&lock);
    return moved;
}

/* One handler per base handler (NumPy's default, in practice just one), never freed: NumPy keeps
 * a reference to its capsule in every array it allocated. */
#define MAX_HANDLERS 8
static PyObject *capsules[MAX_HANDLERS];
static PyObject *bases[MAX_HANDLERS];
static int nhandlers = 0;

static int is_ours(PyObject *capsule) {
    for (int i = 0; i < nhandlers; i++)
        if (capsules[i] == capsule) return 1;
    return 0;
}

/* Our handler in front of the `base` handler capsule (a new reference), or NULL. */
static PyObject *handler_for(PyObject *base) {
    for (int i = 0; i < nhandlers; i++)
        if (bases[i] == base) {
            Py_INCREF(capsules[i]);
            return capsules[i];
        }
    if (nhandlers == MAX_HANDLERS) {
        PyErr_SetString(PyExc_RuntimeError, "ember pool: too many distinct base handlers");
        return NULL;
    }
    PyDataMem_Handler *inner = PyCapsule_GetPointer(base, "mem_handler");
    if (inner == NULL) return NULL;
    PyDataMem_Handler *h = PyMem_RawCalloc(1, sizeof(PyDataMem_Handler));
    if (h == NULL) return PyErr_NoMemory();
    snprintf(h->name, sizeof(h->name), "ember_pool");
    h->version = 1;
    h->allocator.ctx = inner;
    h->allocator.malloc = handler_malloc;
    h->allocator.calloc = handler_calloc;
    h->allocator.realloc = handler_realloc;
    h->allocator.free = handler_free;
    PyObject *capsule = PyCapsule_New(h, "mem_handler", NULL);
    if (capsule == NULL) {
        PyMem_RawFree(h);
        return NULL;
    }
    Py_INCREF(base);
    bases[nhandlers] = base;
    capsules[nhandlers] = capsule;
    nhandlers++;
    Py_INCREF(capsule);
    return capsule;
}

/* Put the pool in front of this context's handler; whether it was installed just now. */
static int install_here(void) {
    PyObject *current = PyDataMem_GetHandler();
    if (current == NULL) return -1;
    if (is_ours(current)) {
        Py_DECREF(current);
        return 0;
    }
    PyObject *ours = handler_for(current);
    Py_DECREF(current);
    if (ours == NULL) return -1;
    PyObject *old = PyDataMem_SetHandler(ours);
    Py_DECREF(ours);
    if (old == NULL) return -1;
    Py_DECREF(old);
    return 1;
}

static int configure(PyObject *args) {
    unsigned long long lim, least;
    int huge;
    if (!PyArg_ParseTuple(args, "KKp", &lim, &least, &huge)) return -1;
    pthread_mutex_lock(&lock);
    limit = (size_t)lim;
    min_bytes = least < PAGE ? PAGE : (size_t)least;
    if (min_bytes < route_from) route_from = min_bytes;
    hugepage = huge;
    trim(limit);
    pthread_mutex_unlock(&lock);
    return 0;
}

static PyObject *py_install(PyObject *self, PyObject *args) {
    if (configure(args) != 0) return NULL;
    int done = install_here();
    if (done < 0) return NULL;
    return PyBool_FromLong(done);
}

static int pending_install(void *unused) {
    (void)unused;
    if (install_here() < 0) PyErr_Clear();  /* never raise into whatever the main thread runs */
    return 0;
}

static PyObject *py_install_on_main_thread(PyObject *self, PyObject *args) {
    if (configure(args) != 0) return NULL;
    return PyBool_FromLong(Py_AddPendingCall(pending_install, NULL) == 0);
}

static PyObject *py_installed(PyObject *self, PyObject *unused) {
    PyObject *current = PyDataMem_GetHandler();
    if (current == NULL) return NULL;
    int ours = is_ours(current);
    Py_DECREF(current);
    return PyBool_FromLong(ours);
}

static PyObject *py_release(PyObject *self, PyObject *unused) {
    pthread_mutex_lock(&lock);
    size_t freed = trim(0);
    pthread_mutex_unlock(&lock);
    return PyLong_FromSize_t(freed);
}

static PyObject *py_stats(PyObject *self, PyObject *unused) {
    pthread_mutex_lock(&lock);
    PyObject *out = Py_BuildValue(
        "{s:n,s:n,s:n,s:n,s:K,s:K,s:K,s:n,s:n}", "cached_bytes", (Py_ssize_t)cached_bytes,
        "cached_blocks", (Py_ssize_t)cached_blocks, "live_bytes", (Py_ssize_t)live_bytes,
        "live_blocks", (Py_ssize_t)live_blocks, "hits", hits, "misses", misses,
        "released_bytes", released, "limit", (Py_ssize_t)limit, "min_bytes", (Py_ssize_t)min_bytes);
    pthread_mutex_unlock(&lock);
    return out;
}

static void before_fork(void) { pthread_mutex_lock(&lock); }
static void after_fork(void) { pthread_mutex_unlock(&lock); }

static PyMethodDef methods[] = {
    {"install", py_install, METH_VARARGS,
     "install(limit, min_bytes, hugepage): the pool in front of this context's handler"},
    {"install_on_main_thread", py_install_on_main_thread, METH_VARARGS,
     "install_on_main_thread(limit, min_bytes, hugepage): install from the main thread, soon"},
    {"installed", py_installed, METH_NOARGS, "whether this context's handler is the pool"},
    {"release", py_release, METH_NOARGS, "return the cached blocks to the system; the bytes"},
    {"stats", py_stats, METH_NOARGS, "the pool's counters"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "ember_pool", NULL, -1, methods};

PyMODINIT_FUNC PyInit_ember_pool(void) {
    import_array();
    pthread_atfork(before_fork, after_fork, after_fork);
    return PyModule_Create(&module);
}
