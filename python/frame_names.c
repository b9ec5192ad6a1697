// SPDX-License-Identifier: GPL-2.0
/* frame_names: CPython's frames told apart by name. */
#include "python/frame_names.h"

#include <string.h>

enum py_native_role py_native_role(const char *name)
{
	static const char eval[] = "_PyEval_EvalFrameDefault";

	if (!strncmp(name, eval, sizeof(eval) - 1) &&
	    (name[sizeof(eval) - 1] == '\0' || name[sizeof(eval) - 1] == '.'))
		return PY_NATIVE_EVAL;
	return strncmp(name, "py::", 4) ? PY_NATIVE_OTHER : PY_NATIVE_TRAMPOLINE;
}

/* Names that begin the interpreter's dispatch and run-main functions. */
static const char *const interpreter_prefixes[] = {
	"_PyEval_", "PyEval_", "PyObject_Call", "_PyObject_Call", "PyObject_Vectorcall",
	"_PyObject_Vectorcall", "_PyObject_MakeTpCall", "_PyFunction_Vectorcall",
	"_PyVectorcall_Call", "PyVectorcall_Call", "_PyCFunction", "cfunction_call",
	"cfunction_vectorcall", "method_vectorcall", "vectorcall_method", "slot_tp_call",
	"object_vacall", "call_function", "do_call_core", "function_code_fastcall",
	"run_eval_code_obj", "run_mod", "pyrun_file", "_PyRun_", "PyRun_", "pymain_",
	"Py_RunMain", "Py_BytesMain", "Py_Main", "thread_run", "t_bootstrap", "pythread_wrapper",
};

bool py_frame_is_interpreter(const char *name, const char *object)
{
	for (size_t i = 0; i < sizeof(interpreter_prefixes) / sizeof(interpreter_prefixes[0]); i++)
		if (!strncmp(name, interpreter_prefixes[i], strlen(interpreter_prefixes[i])))
			return true;
	if (object && !strncmp(object, "python3.", 8) && strchr(object, '/') == NULL)
		return !strcmp(name, "main") || !strcmp(name, "_start");
	return false;
}

bool py_frame_name_split(const char *name, size_t len, struct py_frame_parts *parts)
{
	size_t i, colon, digits = 0;
	unsigned long line = 0;

	if (len < 6 || name[len - 1] != ')')
		return false;
	for (i = len - 1; i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9'; i--)
		digits++;
	if (!digits || digits > 9 || i < 4 || name[i - 1] != ':')
		return false;
	for (size_t d = i; d < len - 1; d++)
		line = line * 10 + (unsigned long)(name[d] - '0');
	colon = i - 1;
	for (i = 1; i + 1 < colon; i++) {
		if (name[i] != ' ' || name[i + 1] != '(')
			continue;
		if (i + 2 == colon)
			return false; /* no file name */
		*parts = (struct py_frame_parts){ .qualname_len = i, .file_at = i + 2,
						  .file_len = colon - i - 2, .line = line };
		return true;
	}
	return false;
}

bool py_frame_name_is_python(const char *name, size_t len)
{
	struct py_frame_parts parts;

	return py_frame_name_split(name, len, &parts);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

bool py_file_is_python(const char *file)
{
	return ends_with(file, ".py") || ends_with(file, ".pyw") ||
	       (file[0] == '<' && ends_with(file, ">"));
}
