/* ember's kernel launcher: one call from Python into a compiled kernel.
 *
 * launch(address, arrays, ints, floats) calls the kernel at `address` as
 * kernel(char **data_pointers, const int64_t *ints, const double *floats), with the GIL released.
 * rows(address, nt, a, *others): a row program of rows.py (ints rows, cols, nt) over a and others
 * (C-contiguous copies where they are not) into a fresh array of a's shape and dtype, returned;
 * None where an array is not an ndarray of a's shape and dtype, or a is 0-d (the caller's NumPy
 * path). bounds(a): (min, max) of a C-contiguous native integer array of up to 64 bits as Python
 * ints, None when empty, NotImplemented for other arrays (the caller asks NumPy).
 * class_rows(address, nt, x, target): the cross_entropy row program over the 2-D x and the
 * (rows,) integer target, as C-contiguous copies (target as int64) where they are not:
 * (x, target, loss, max, lse), the last three fresh (rows,) arrays of x's dtype.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <stdint.h>

#define MAX_ARGS 64

typedef void (*kernel_t)(char **, const int64_t *, const double *);

static PyObject *launch(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 || !PyTuple_Check(args[1]) || !PyTuple_Check(args[2]) || !PyTuple_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "launch(address, arrays, ints, floats): three tuples expected");
        return NULL;
    }
    kernel_t kernel = (kernel_t)PyLong_AsVoidPtr(args[0]);
    if (kernel == NULL) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "launch: null kernel address");
        return NULL;
    }
    Py_ssize_t na = PyTuple_GET_SIZE(args[1]), ni = PyTuple_GET_SIZE(args[2]),
               nf = PyTuple_GET_SIZE(args[3]);
    if (na > MAX_ARGS || ni > MAX_ARGS || nf > MAX_ARGS) {
        PyErr_SetString(PyExc_ValueError, "launch: at most 64 arrays, ints and floats");
        return NULL;
    }
    char *data[MAX_ARGS];
    int64_t ints[MAX_ARGS];
    double floats[MAX_ARGS];
    for (Py_ssize_t i = 0; i < na; i++) {
        PyObject *a = PyTuple_GET_ITEM(args[1], i);
        if (!PyArray_Check(a)) {
            PyErr_SetString(PyExc_TypeError, "launch: arrays must be NumPy arrays");
            return NULL;
        }
        data[i] = PyArray_BYTES((PyArrayObject *)a);
    }
    for (Py_ssize_t i = 0; i < ni; i++) {
        ints[i] = (int64_t)PyLong_AsLongLong(PyTuple_GET_ITEM(args[2], i));
        if (ints[i] == -1 && PyErr_Occurred()) return NULL;
    }
    for (Py_ssize_t i = 0; i < nf; i++) {
        floats[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(args[3], i));
        if (floats[i] == -1.0 && PyErr_Occurred()) return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    kernel(data, ints, floats);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static void release(PyArrayObject **held, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(held[i]);
}

static PyObject *rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 3 || nargs > MAX_ARGS + 1) {
        PyErr_SetString(PyExc_TypeError, "rows(address, nt, a, *others): 1 to 63 arrays");
        return NULL;
    }
    kernel_t kernel = (kernel_t)PyLong_AsVoidPtr(args[0]);
    if (kernel == NULL) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "rows: null kernel address");
        return NULL;
    }
    int64_t ints[3];
    ints[2] = (int64_t)PyLong_AsLongLong(args[1]);
    if (ints[2] == -1 && PyErr_Occurred()) return NULL;
    if (!PyArray_Check(args[2]) || PyArray_NDIM((PyArrayObject *)args[2]) == 0) Py_RETURN_NONE;
    PyArrayObject *a = (PyArrayObject *)args[2];
    const int nd = PyArray_NDIM(a);
    npy_intp *dims = PyArray_DIMS(a);
    PyArray_Descr *descr = PyArray_DESCR(a);
    const Py_ssize_t n = nargs - 2;
    PyArrayObject *held[MAX_ARGS];
    char *data[MAX_ARGS];
    for (Py_ssize_t i = 0; i < n; i++) {
        PyArrayObject *o = (PyArrayObject *)args[2 + i];
        if (!PyArray_Check(args[2 + i]) || PyArray_NDIM(o) != nd
                || !PyArray_CompareLists(PyArray_DIMS(o), dims, nd)
                || !PyArray_EquivTypes(PyArray_DESCR(o), descr)) {
            release(held, i);
            Py_RETURN_NONE;
        }
        held[i] = (PyArrayObject *)PyArray_FromArray(o, NULL, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED);
        if (held[i] == NULL) {
            release(held, i);
            return NULL;
        }
        data[i] = PyArray_BYTES(held[i]);
    }
    Py_INCREF(descr);
    PyArrayObject *out = (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims,
                                                               NULL, NULL, 0, NULL);
    if (out == NULL) {
        release(held, n);
        return NULL;
    }
    data[n] = PyArray_BYTES(out);
    ints[1] = (int64_t)dims[nd - 1];
    ints[0] = ints[1] ? (int64_t)PyArray_SIZE(a) / ints[1] : 0;
    Py_BEGIN_ALLOW_THREADS
    kernel(data, ints, NULL);
    Py_END_ALLOW_THREADS
    release(held, n);
    return (PyObject *)out;
}

static PyObject *class_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 || !PyArray_Check(args[2]) || !PyArray_Check(args[3])
            || PyArray_NDIM((PyArrayObject *)args[2]) != 2) {
        PyErr_SetString(PyExc_TypeError, "class_rows(address, nt, x, target): x 2-D, arrays");
        return NULL;
    }
    kernel_t kernel = (kernel_t)PyLong_AsVoidPtr(args[0]);
    if (kernel == NULL) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "class_rows: null kernel address");
        return NULL;
    }
    int64_t ints[3];
    ints[2] = (int64_t)PyLong_AsLongLong(args[1]);
    if (ints[2] == -1 && PyErr_Occurred()) return NULL;
    PyArrayObject *x = (PyArrayObject *)PyArray_FromArray((PyArrayObject *)args[2], NULL,
                                                          NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED);
    if (x == NULL) return NULL;
    PyArrayObject *t = (PyArrayObject *)PyArray_FromArray(
        (PyArrayObject *)args[3], PyArray_DescrFromType(NPY_INT64),
        NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST);
    if (t == NULL) {
        Py_DECREF(x);
        return NULL;
    }
    npy_intp *dims = PyArray_DIMS(x);
    if (PyArray_SIZE(t) != dims[0]) {
        Py_DECREF(x);
        Py_DECREF(t);
        PyErr_SetString(PyExc_ValueError, "class_rows: one target a row expected");
        return NULL;
    }
    PyArray_Descr *descr = PyArray_DESCR(x);
    PyObject *result = PyTuple_New(5);
    if (result == NULL) {
        Py_DECREF(x);
        Py_DECREF(t);
        return NULL;
    }
    PyTuple_SET_ITEM(result, 0, (PyObject *)x);
    PyTuple_SET_ITEM(result, 1, (PyObject *)t);
    char *data[5] = {PyArray_BYTES(x), PyArray_BYTES(t), NULL, NULL, NULL};
    for (int i = 2; i < 5; i++) {
        Py_INCREF(descr);
        PyObject *o = PyArray_NewFromDescr(&PyArray_Type, descr, 1, dims, NULL, NULL, 0, NULL);
        if (o == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyTuple_SET_ITEM(result, i, o);
        data[i] = PyArray_BYTES((PyArrayObject *)o);
    }
    ints[0] = (int64_t)dims[0];
    ints[1] = (int64_t)dims[1];
    Py_BEGIN_ALLOW_THREADS
    kernel(data, ints, NULL);
    Py_END_ALLOW_THREADS
    return result;
}

#define BOUNDS(T) { \
    const T *p = (const T *)PyArray_DATA(a); \
    T lo = p[0], hi = p[0]; \
    for (npy_intp i = 1; i < size; i++) { lo = p[i] < lo ? p[i] : lo; hi = p[i] > hi ? p[i] : hi; } \
    return Py_BuildValue("(LL)", (long long)lo, (long long)hi); }

static PyObject *bounds(PyObject *self, PyObject *arg) {
    if (!PyArray_Check(arg)) Py_RETURN_NOTIMPLEMENTED;
    PyArrayObject *a = (PyArrayObject *)arg;
    if (!PyArray_ISCARRAY_RO(a) || !PyArray_ISNOTSWAPPED(a)) Py_RETURN_NOTIMPLEMENTED;
    const npy_intp size = PyArray_SIZE(a);
    if (size == 0) Py_RETURN_NONE;
    switch (PyArray_TYPE(a)) {
        case NPY_INT8: BOUNDS(int8_t)
        case NPY_INT16: BOUNDS(int16_t)
        case NPY_INT32: BOUNDS(int32_t)
        case NPY_INT64: BOUNDS(int64_t)
        case NPY_UINT8: BOUNDS(uint8_t)
        case NPY_UINT16: BOUNDS(uint16_t)
        case NPY_UINT32: BOUNDS(uint32_t)
        default: Py_RETURN_NOTIMPLEMENTED;
    }
}

static PyMethodDef methods[] = {
    {"launch", (PyCFunction)(void (*)(void))launch, METH_FASTCALL, "launch(address, arrays, ints, floats)"},
    {"rows", (PyCFunction)(void (*)(void))rows, METH_FASTCALL, "rows(address, nt, a, *others)"},
    {"bounds", (PyCFunction)bounds, METH_O, "bounds(a)"},
    {"class_rows", (PyCFunction)(void (*)(void))class_rows, METH_FASTCALL, "class_rows(address, nt, x, target)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "ember_launch", NULL, -1, methods};

PyMODINIT_FUNC PyInit_ember_launch(void) {
    import_array();
    return PyModule_Create(&module);
}
