/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frame_names: what the names of frames say about CPython: which native
 * frames are the interpreter's eval loop and dispatch machinery, and which
 * names are Python frames' ("qualname (file:LINE)"). Plain functions of
 * strings, for the merge, the profile and the readers of folded files.
 */
#ifndef FLAMETOP_PY_FRAME_NAMES_H
#define FLAMETOP_PY_FRAME_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* What a native frame is to the merge. */
enum py_native_role {
	PY_NATIVE_OTHER,
	PY_NATIVE_EVAL,       /* the eval loop: runs Python frames */
	PY_NATIVE_TRAMPOLINE, /* a -X perf trampoline (py::...) */
};

/*
 * py_native_role() says what the native frame named @name is:
 * _PyEval_EvalFrameDefault (and its cold part) the eval loop, "py::..."
 * a trampoline.
 */
enum py_native_role py_native_role(const char *name);

/*
 * py_frame_is_interpreter() is true for the interpreter's dispatch
 * frames, those a view hides under Python frames: the eval loop, the
 * vectorcall and PyObject_Call machinery, the run-main machinery; and in
 * @object (NULL: not known) a python3.X executable, its main and _start.
 */
bool py_frame_is_interpreter(const char *name, const char *object);

/* The parts of a Python frame's name "qualname (file:LINE)". */
struct py_frame_parts {
	size_t qualname_len; /* the qualname is the name's first bytes */
	size_t file_at, file_len;
	unsigned long line;
};

/*
 * py_frame_name_split() reads @name (@len bytes) as flametop and py-spy
 * name Python frames: a qualname, " (", a file name, ":", the line's
 * digits, ")" at its end; the first " (" opens the file (a qualname has
 * no blank, a file name may).
 * Returns true with @parts filled when it is one.
 */
bool py_frame_name_split(const char *name, size_t len, struct py_frame_parts *parts);

/* py_frame_name_is_python() is py_frame_name_split() without the parts. */
bool py_frame_name_is_python(const char *name, size_t len);

/*
 * py_file_is_python() is true for a file name a Python code object has:
 * one ending in ".py" (or ".pyw"), or Python's own "<string>", "<stdin>",
 * "<frozen ...>" kind.
 */
bool py_file_is_python(const char *file);

#endif
