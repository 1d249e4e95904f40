/* ember's kernel launcher: one call from Python into a compiled kernel.
 *
 * launch(address, arrays, ints, floats) calls the kernel at `address` as
 * kernel(char **data_pointers, const int64_t *ints, const double *floats), with the GIL released.
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

static PyMethodDef methods[] = {
    {"launch", (PyCFunction)(void (*)(void))launch, METH_FASTCALL, "launch(address, arrays, ints, floats)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "ember_launch", NULL, -1, methods};

PyMODINIT_FUNC PyInit_ember_launch(void) {
    import_array();
    return PyModule_Create(&module);
}
