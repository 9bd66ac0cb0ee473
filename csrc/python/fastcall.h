// One mechanical rule turns every AscendCL C function into a Python function (the "C names" face, also
// reused by the pyACL face): parameters that are non-const pointers to a scalar, enum or pointer are
// out-parameters and come back as return values, before the error code (`ptr, ret = aclrtMalloc(size,
// policy)`); every other parameter is an input, in C order: integers and enums as int, pointers and
// handles as int addresses, `const char*` as str. A function returning aclError with no out-parameters
// returns the bare code; one returning a value returns it bare.
//
// Bindings are raw METH_FASTCALL functions generated from the C signature at compile time: no argument
// tuple, no keyword parsing, no per-call allocation beyond the result, so a cheap call costs little more
// than the interpreter's own call overhead.
#pragma once
#include <Python.h>

#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

#include "acl/acl.h"

namespace ascendsim::python {

// Structs that come back through an out-parameter are converted by a specialization of StructOut.
template <typename T>
struct StructOut : std::false_type {};

template <typename P>
using pointee_t = std::remove_pointer_t<P>;

template <typename P>
constexpr bool is_out_param() {
  if constexpr (!std::is_pointer_v<P>) {
    return false;
  } else {
    using T = pointee_t<P>;
    return !std::is_const_v<T> && (std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_pointer_v<T> ||
                                   StructOut<T>::value);
  }
}

template <typename P>
constexpr bool is_string_param() {
  return std::is_same_v<P, const char*>;
}

// The C ABI's view of a type: the headers' enums are C enums, ints to a C caller, who may pass any int for one
// (aclrtMemcpy(..., kind=3072)). Holding such a value in a C++ enum object and loading it is undefined behaviour
// (UBSan: "load of value 3072, which is not a valid value for type"), so a binding keeps enum inputs, enum
// out-parameters and enum results as int32_t from end to end, and calls the function through its C type with
// int32_t in the enums' places: the same ABI (int-sized enums are passed and returned as ints), no enum load.
template <typename T>
using wire_t = std::conditional_t<std::is_enum_v<T>, int32_t, T>;
template <typename T>
using wire_pointee_t = std::conditional_t<std::is_const_v<T>, const wire_t<std::remove_const_t<T>>, wire_t<T>>;
template <typename P>
using wire_param_t = std::conditional_t<std::is_pointer_v<P>, std::add_pointer_t<wire_pointee_t<pointee_t<P>>>, wire_t<P>>;
template <typename T>
constexpr bool int_sized_enum() {
  if constexpr (std::is_enum_v<T>) return sizeof(T) == sizeof(int32_t);
  return true;
}

// fn through its wire type: the C function as a C caller sees it (hand-written bindings call through it too).
template <typename R, typename... Ps>
auto wire_function(R (*fn)(Ps...)) {
  return reinterpret_cast<wire_t<R> (*)(wire_param_t<Ps>...)>(fn);
}
template <typename R, typename... Ps>
auto wire_function(R (*fn)(Ps..., ...)) {
  return reinterpret_cast<wire_t<R> (*)(wire_param_t<Ps>..., ...)>(fn);
}

// Storage for one parameter during a call: the parsed input, or the out-parameter's value (of a wire type).
template <typename P>
using slot_t = std::conditional_t<is_out_param<P>(), pointee_t<P>, P>;

inline bool type_error(PyObject* name, Py_ssize_t index, const char* expected, PyObject* got) {
  PyErr_Format(PyExc_TypeError, "%U() argument %zd must be %s, not %.100s", name, index + 1, expected,
               Py_TYPE(got)->tp_name);
  return false;
}

// An int argument as a Python int: ints as they are, other integer types (numpy.int32, ...) through
// __index__, as pyACL's "i"/"I" formats accept them; floats, None and str are refused (null).
class IndexRef {
 public:
  explicit IndexRef(PyObject* arg) {
    if (PyLong_Check(arg)) {
      object_ = arg;
    } else if (PyIndex_Check(arg)) {
      owned_ = PyNumber_Index(arg);
      if (owned_ == nullptr) PyErr_Clear();  // reported as a TypeError by the caller
      object_ = owned_;
    }
  }
  ~IndexRef() { Py_XDECREF(owned_); }
  IndexRef(const IndexRef&) = delete;
  IndexRef& operator=(const IndexRef&) = delete;
  PyObject* get() const { return object_; }

 private:
  PyObject* object_ = nullptr;
  PyObject* owned_ = nullptr;
};

template <typename P>
bool parse_input(PyObject* name, Py_ssize_t index, PyObject* arg, P* out) {
  if constexpr (is_string_param<P>()) {
    if (!PyUnicode_Check(arg)) return type_error(name, index, "str", arg);
    *out = PyUnicode_AsUTF8(arg);
    return *out != nullptr;
  } else if constexpr (std::is_pointer_v<P>) {
    IndexRef integer(arg);
    if (integer.get() == nullptr) return type_error(name, index, "int (an address or handle)", arg);
    const unsigned long long value = PyLong_AsUnsignedLongLongMask(integer.get());
    if (value == static_cast<unsigned long long>(-1) && PyErr_Occurred()) return false;
    *out = reinterpret_cast<P>(static_cast<uintptr_t>(value));
    return true;
  } else if constexpr (std::is_floating_point_v<P>) {
    const double value = PyFloat_AsDouble(arg);
    if (value == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return type_error(name, index, "float", arg);
    }
    *out = static_cast<P>(value);
    return true;
  } else {
    static_assert(std::is_integral_v<P>, "parameter type needs a hand-written binding");
    IndexRef integer(arg);
    if (integer.get() == nullptr) return type_error(name, index, "int", arg);
    arg = integer.get();
    using I = P;
    if constexpr (std::is_unsigned_v<I>) {
      // Like pyACL's "k"/"I" formats: wraps instead of failing, so -1 passed as a size_t index works.
      const unsigned long long value = PyLong_AsUnsignedLongLongMask(arg);
      if (value == static_cast<unsigned long long>(-1) && PyErr_Occurred()) return false;
      *out = static_cast<P>(value);
    } else {
      const long long value = PyLong_AsLongLong(arg);
      if (value == -1 && PyErr_Occurred()) return false;
      if (value < static_cast<long long>(std::numeric_limits<I>::min()) ||
          value > static_cast<long long>(std::numeric_limits<I>::max())) {
        PyErr_Format(PyExc_OverflowError, "%U() argument %zd: %lld does not fit the C parameter", name, index + 1,
                     value);
        return false;
      }
      *out = static_cast<P>(value);
    }
    return true;
  }
}

template <typename T>
PyObject* to_python(const T& value) {
  if constexpr (std::is_same_v<T, const char*> || std::is_same_v<T, char*>) {
    if (value == nullptr) Py_RETURN_NONE;
    return PyUnicode_FromString(value);
  } else if constexpr (std::is_pointer_v<T>) {
    return PyLong_FromUnsignedLongLong(static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(value)));
  } else if constexpr (std::is_floating_point_v<T>) {
    return PyFloat_FromDouble(static_cast<double>(value));
  } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
    return PyLong_FromUnsignedLongLong(static_cast<unsigned long long>(value));
  } else if constexpr (std::is_integral_v<T>) {
    return PyLong_FromLongLong(static_cast<long long>(value));
  } else {
    return StructOut<T>::to_python(value);
  }
}

// Packs the out-parameters (in C order) and the function's own result into the Python return value.
template <typename Result, typename Slots, size_t... Outs>
PyObject* pack_result(const Result* result, Slots& slots, std::index_sequence<Outs...>) {
  constexpr size_t n_out = sizeof...(Outs);
  constexpr size_t n_result = std::is_void_v<Result> ? 0 : 1;
  if constexpr (n_out == 0 && n_result == 0) {
    Py_RETURN_NONE;
  } else if constexpr (n_out == 0) {
    return to_python(*result);
  } else {
    PyObject* tuple = PyTuple_New(n_out + n_result);
    if (tuple == nullptr) return nullptr;
    size_t position = 0;
    bool ok = true;
    auto put = [&](PyObject* item) {
      ok = ok && item != nullptr;
      if (item != nullptr) PyTuple_SET_ITEM(tuple, position++, item);
    };
    (put(to_python(std::get<Outs>(slots))), ...);
    if constexpr (n_result == 1) put(to_python(*result));
    if (!ok) {
      Py_DECREF(tuple);
      return nullptr;
    }
    return tuple;
  }
}

// Index lists of the out-parameters and inputs of a parameter pack.
template <typename Seq, bool WantOut, typename... Ps>
struct select_params;
template <size_t... Is, bool WantOut, typename... Ps>
struct select_params<std::index_sequence<Is...>, WantOut, Ps...> {
  template <size_t I>
  using param = std::tuple_element_t<I, std::tuple<Ps...>>;
  template <size_t... Acc>
  static constexpr auto build(std::index_sequence<Acc...> acc) {
    return acc;
  }
  template <size_t... Acc, size_t First, size_t... Rest>
  static constexpr auto build(std::index_sequence<Acc...>, std::index_sequence<First, Rest...>) {
    if constexpr (is_out_param<param<First>>() == WantOut)
      return build(std::index_sequence<Acc..., First>{}, std::index_sequence<Rest...>{});
    else
      return build(std::index_sequence<Acc...>{}, std::index_sequence<Rest...>{});
  }
  template <size_t... Acc>
  static constexpr auto build(std::index_sequence<Acc...> acc, std::index_sequence<>) {
    return acc;
  }
  using type = decltype(build(std::index_sequence<>{}, std::index_sequence<Is...>{}));
};

template <bool WantOut, typename... Ps>
using params_where = typename select_params<std::index_sequence_for<Ps...>, WantOut, Ps...>::type;

enum class Gil { Keep, Release };

// The binding of Fn seen through its wire types R(Ps...) (see wire_t).
template <auto Fn, Gil gil, typename R, typename... Ps>
struct WireBinding {
  using Slots = std::tuple<slot_t<Ps>...>;
  using Inputs = params_where<false, Ps...>;
  using Outs = params_where<true, Ps...>;

  template <size_t... Is>
  static bool parse([[maybe_unused]] PyObject* name, [[maybe_unused]] PyObject* const* args,
                    [[maybe_unused]] Slots& slots, std::index_sequence<Is...>) {
    [[maybe_unused]] Py_ssize_t index = 0;
    bool ok = true;
    ((ok = ok && parse_input(name, index, args[index], &std::get<Is>(slots)), ++index), ...);
    return ok;
  }

  template <size_t I>
  static auto argument(Slots& slots) {
    using P = std::tuple_element_t<I, std::tuple<Ps...>>;
    if constexpr (is_out_param<P>())
      return &std::get<I>(slots);
    else
      return std::get<I>(slots);
  }

  template <size_t... Is>
  static R invoke(Slots& slots, std::index_sequence<Is...>) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // old samples still call deprecated functions
    return wire_function(Fn)(argument<Is>(slots)...);
#pragma GCC diagnostic pop
  }

  static R run(Slots& slots) {
    if constexpr (gil == Gil::Release) {
      PyThreadState* state = PyEval_SaveThread();
      if constexpr (std::is_void_v<R>) {
        invoke(slots, std::index_sequence_for<Ps...>{});
        PyEval_RestoreThread(state);
      } else {
        R result = invoke(slots, std::index_sequence_for<Ps...>{});
        PyEval_RestoreThread(state);
        return result;
      }
    } else {
      return invoke(slots, std::index_sequence_for<Ps...>{});
    }
  }

  // `self` is the function's name (a str), set when the function object is created.
  static PyObject* call(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    constexpr Py_ssize_t n_in = static_cast<Py_ssize_t>(Inputs::size());
    // Functions without inputs ignore extra arguments, as pyACL's do (code calls get_context(device_id)).
    if (n_in > 0 && nargs != n_in) {
      PyErr_Format(PyExc_TypeError, "%U() takes %zd argument%s (%zd given)", self, n_in, n_in == 1 ? "" : "s",
                   nargs);
      return nullptr;
    }
    Slots slots{};
    if (!parse(self, args, slots, Inputs{})) return nullptr;
    if constexpr (std::is_void_v<R>) {
      run(slots);
      return pack_result<void>(nullptr, slots, Outs{});
    } else {
      const R result = run(slots);
      return pack_result<R>(&result, slots, Outs{});
    }
  }
};

template <auto Fn, Gil gil = Gil::Keep>
struct Binding;

template <typename R, typename... Ps, R (*Fn)(Ps...), Gil gil>
struct Binding<Fn, gil> : WireBinding<Fn, gil, wire_t<R>, wire_param_t<Ps>...> {
  static_assert(int_sized_enum<R>() && (int_sized_enum<std::remove_cv_t<pointee_t<Ps>>>() && ...) &&
                    (int_sized_enum<Ps>() && ...),
                "an enum that is not int-sized cannot travel as int32_t");
};

}  // namespace ascendsim::python
