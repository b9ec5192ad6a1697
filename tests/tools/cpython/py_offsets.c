// SPDX-License-Identifier: GPL-2.0
/*
 * py_offsets: prints, from CPython's own headers (compiled against one
 * interpreter's include/python3.X, internal headers included), the offsets
 * flametop's python/offsets.c holds for that version, one "field value" a
 * line, named as struct py_layout names them. For 3.13 it also prints
 * "debug_offsets" and the bytes of a _Py_DebugOffsets filled as CPython
 * fills its own (pycore_runtime_init.h), which python/ reads from a
 * process. tests/unit/test_python.c compares: an independent source.
 *
 * Built and run by offsets.sh beside it, for each interpreter's headers found.
 */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#if PY_MINOR_VERSION == 10
#include <frameobject.h>
#else
#include "internal/pycore_frame.h"
#endif
#include "internal/pycore_interp.h"
#include "internal/pycore_runtime.h"

#define SHOW(name, value) printf("%s %zu\n", name, (size_t)(value))

static void interpreter(void)
{
	SHOW("runtime_interp_head", offsetof(_PyRuntimeState, interpreters.head));
	SHOW("interp_next", offsetof(PyInterpreterState, next));
#if PY_MINOR_VERSION >= 11
	SHOW("interp_threads", offsetof(PyInterpreterState, threads.head));
	SHOW("ts_native_id", offsetof(PyThreadState, native_thread_id));
#else
	SHOW("interp_threads", offsetof(PyInterpreterState, tstate_head));
#endif
	SHOW("ts_next", offsetof(PyThreadState, next));
	SHOW("ts_interp", offsetof(PyThreadState, interp));
	SHOW("ts_thread_id", offsetof(PyThreadState, thread_id));
#if PY_MINOR_VERSION >= 12
	SHOW("interp_id", offsetof(PyInterpreterState, id));
	SHOW("runtime_interp_main", offsetof(_PyRuntimeState, interpreters.main));
#endif
#if PY_MINOR_VERSION >= 13
	SHOW("interp_code_count", offsetof(PyInterpreterState, func_state.next_version));
#endif
}

static void frames(void)
{
#if PY_MINOR_VERSION >= 13
	SHOW("ts_frame", offsetof(PyThreadState, current_frame));
	SHOW("frame_code", offsetof(_PyInterpreterFrame, f_executable));
	SHOW("frame_instr", offsetof(_PyInterpreterFrame, instr_ptr));
#elif PY_MINOR_VERSION >= 11
	SHOW("ts_frame", offsetof(PyThreadState, cframe));
	SHOW("cframe_frame", offsetof(_PyCFrame, current_frame));
	SHOW("frame_code", offsetof(_PyInterpreterFrame, f_code));
	SHOW("frame_instr", offsetof(_PyInterpreterFrame, prev_instr));
#else
	SHOW("ts_frame", offsetof(PyThreadState, frame));
	SHOW("frame_code", offsetof(PyFrameObject, f_code));
	SHOW("frame_back", offsetof(PyFrameObject, f_back));
	SHOW("frame_instr", offsetof(PyFrameObject, f_lasti));
#endif
#if PY_MINOR_VERSION >= 11
	SHOW("frame_back", offsetof(_PyInterpreterFrame, previous));
	SHOW("frame_owner", offsetof(_PyInterpreterFrame, owner));
	SHOW("code_adaptive", offsetof(PyCodeObject, co_code_adaptive));
	SHOW("code_name", offsetof(PyCodeObject, co_qualname));
#else
	SHOW("code_name", offsetof(PyCodeObject, co_name));
#endif
#if PY_MINOR_VERSION == 11
	SHOW("frame_entry", offsetof(_PyInterpreterFrame, is_entry));
#endif
#if PY_MINOR_VERSION >= 12
	SHOW("owned_by_cstack", FRAME_OWNED_BY_CSTACK);
#endif
}

static void objects(void)
{
	SHOW("code_filename", offsetof(PyCodeObject, co_filename));
	SHOW("code_linetable", offsetof(PyCodeObject, co_linetable));
	SHOW("code_firstlineno", offsetof(PyCodeObject, co_firstlineno));
	SHOW("code_argcount", offsetof(PyCodeObject, co_argcount));
#if PY_MINOR_VERSION >= 12
	SHOW("code_version", offsetof(PyCodeObject, co_version));
#endif
	SHOW("str_length", offsetof(PyASCIIObject, length));
	SHOW("str_state", offsetof(PyASCIIObject, state));
	SHOW("str_ascii_size", sizeof(PyASCIIObject));
	SHOW("str_compact_size", sizeof(PyCompactUnicodeObject));
	SHOW("bytes_size", offsetof(PyVarObject, ob_size));
	SHOW("bytes_data", offsetof(PyBytesObject, ob_sval));
}

#if PY_MINOR_VERSION >= 13
/* A _Py_DebugOffsets as CPython fills it, for the fields python/ reads. */
static void debug_offsets(void)
{
	_Py_DebugOffsets d = {
		.cookie = "xdebugpy",
		.version = PY_VERSION_HEX,
		.runtime_state = { .size = sizeof(_PyRuntimeState),
				   .interpreters_head =
					   offsetof(_PyRuntimeState, interpreters.head) },
		.interpreter_state = { .size = sizeof(PyInterpreterState),
				       .id = offsetof(PyInterpreterState, id),
				       .next = offsetof(PyInterpreterState, next),
				       .threads_head = offsetof(PyInterpreterState, threads.head),
				       .gc = offsetof(PyInterpreterState, gc),
				       .imports_modules = offsetof(PyInterpreterState, imports.modules),
				       .sysdict = offsetof(PyInterpreterState, sysdict),
				       .builtins = offsetof(PyInterpreterState, builtins) },
		.thread_state = { .size = sizeof(PyThreadState),
				  .next = offsetof(PyThreadState, next),
				  .interp = offsetof(PyThreadState, interp),
				  .current_frame = offsetof(PyThreadState, current_frame),
				  .thread_id = offsetof(PyThreadState, thread_id),
				  .native_thread_id = offsetof(PyThreadState, native_thread_id) },
		.interpreter_frame = { .size = sizeof(_PyInterpreterFrame),
				       .previous = offsetof(_PyInterpreterFrame, previous),
				       .executable = offsetof(_PyInterpreterFrame, f_executable),
				       .instr_ptr = offsetof(_PyInterpreterFrame, instr_ptr),
				       .owner = offsetof(_PyInterpreterFrame, owner) },
		.code_object = { .size = sizeof(PyCodeObject),
				 .filename = offsetof(PyCodeObject, co_filename),
				 .name = offsetof(PyCodeObject, co_name),
				 .qualname = offsetof(PyCodeObject, co_qualname),
				 .linetable = offsetof(PyCodeObject, co_linetable),
				 .firstlineno = offsetof(PyCodeObject, co_firstlineno),
				 .argcount = offsetof(PyCodeObject, co_argcount),
				 .co_code_adaptive = offsetof(PyCodeObject, co_code_adaptive) },
		.bytes_object = { .size = sizeof(PyBytesObject),
				  .ob_size = offsetof(PyBytesObject, ob_base.ob_size),
				  .ob_sval = offsetof(PyBytesObject, ob_sval) },
		.unicode_object = { .size = sizeof(PyUnicodeObject),
				    .state = offsetof(PyASCIIObject, state),
				    .length = offsetof(PyASCIIObject, length),
				    .asciiobject_size = sizeof(PyASCIIObject) },
	};
	const unsigned char *b = (const unsigned char *)&d;

	printf("debug_offsets ");
	for (size_t i = 0; i < sizeof(d); i++)
		printf("%02x", b[i]);
	printf("\n");
}
#endif

int main(void)
{
	printf("version %d.%d\n", PY_MAJOR_VERSION, PY_MINOR_VERSION);
	interpreter();
	frames();
	objects();
#if PY_MINOR_VERSION >= 13
	debug_offsets();
#endif
	return 0;
}
