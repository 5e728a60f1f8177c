// The words an aten op call's arguments cross the C ABI as (eager/args.go
// reads them): one tagged item per schema argument, in the schema's order.
#include <cstring>

#include "aten/aten.h"

namespace torchtpu {

IntKind int_kind(const c10::TypePtr& t) {
  auto k = t->kind();
  if (k == c10::TypeKind::OptionalType) k = t->castRaw<c10::OptionalType>()->getElementType()->kind();
  switch (k) {
    case c10::TypeKind::ScalarTypeType:
      return IntKind::DType;
    case c10::TypeKind::LayoutType:
      return IntKind::Layout;
    case c10::TypeKind::MemoryFormatType:
      return IntKind::MemoryFormat;
    default:
      return IntKind::Int;
  }
}

namespace {

const char* memory_format_name(int64_t v) {
  switch (static_cast<c10::MemoryFormat>(v)) {
    case c10::MemoryFormat::Contiguous:
      return "contiguous_format";
    case c10::MemoryFormat::Preserve:
      return "preserve_format";
    case c10::MemoryFormat::ChannelsLast:
      return "channels_last";
    case c10::MemoryFormat::ChannelsLast3d:
      return "channels_last_3d";
    default:
      return "contiguous_format";
  }
}

void put_str(std::vector<int64_t>& w, const std::string& s) {
  w.push_back(kStr);
  w.push_back(int64_t(s.size()));
  size_t words = (s.size() + 7) / 8, at = w.size();
  w.resize(at + words, 0);
  std::memcpy(w.data() + at, s.data(), s.size());
}

// put_number writes a Python number as a 0-d scalar of its kind (double,
// int64, bool, complex double), a value of the call rather than part of
// its signature.
void put_number(std::vector<int64_t>& w, const c10::IValue& v) {
  w.push_back(kScalar);
  if (v.isDouble()) {
    w.insert(w.end(), {int64_t(at::kDouble), 0, float_bits(v.toDouble()), 0});
  } else if (v.isInt() || v.isSymInt()) {
    w.insert(w.end(), {int64_t(at::kLong), 0, v.isInt() ? v.toInt() : v.toSymInt().guard_int(__FILE__, __LINE__), 0});
  } else if (v.isBool()) {
    w.insert(w.end(), {int64_t(at::kBool), 0, v.toBool() ? 1 : 0, 0});
  } else if (v.isComplexDouble()) {
    auto c = v.toComplexDouble();
    w.insert(w.end(), {int64_t(at::kComplexDouble), 0, float_bits(c.real()), float_bits(c.imag())});
  } else {
    throw Unsupported("a number argument of kind " + v.tagKind());
  }
}

}  // namespace

void put(std::vector<int64_t>& w, const c10::IValue& v, IntKind ik) {
  if (ik == IntKind::Number && !v.isTensor() && !v.isNone()) {
    put_number(w, v);
  } else if (ik == IntKind::Numbers && v.isList()) {
    auto l = v.toListRef();
    w.push_back(kList);
    w.push_back(int64_t(l.size()));
    for (const c10::IValue& e : l) put_number(w, e);
  } else if (v.isTensor()) {
    put_any_tensor(w, v.toTensor());
  } else if (v.isNone()) {
    w.push_back(kNone);
  } else if (v.isInt() || v.isSymInt()) {
    int64_t i = v.isInt() ? v.toInt() : v.toSymInt().guard_int(__FILE__, __LINE__);
    switch (ik) {
      case IntKind::DType:
        w.push_back(kDType);
        w.push_back(i);
        break;
      case IntKind::Layout:
        w.push_back(kNone);
        break;
      case IntKind::MemoryFormat:
        put_str(w, memory_format_name(i));
        break;
      default:
        w.push_back(kInt);
        w.push_back(i);
    }
  } else if (v.isDouble()) {
    w.push_back(kFloat);
    w.push_back(float_bits(v.toDouble()));
  } else if (v.isBool()) {
    w.push_back(kBool);
    w.push_back(v.toBool() ? 1 : 0);
  } else if (v.isComplexDouble()) {
    auto c = v.toComplexDouble();
    w.push_back(kComplex);
    w.push_back(float_bits(c.real()));
    w.push_back(float_bits(c.imag()));
  } else if (v.isIntList()) {
    auto l = v.toIntList();
    w.push_back(kInts);
    w.push_back(int64_t(l.size()));
    for (int64_t x : l) w.push_back(x);
  } else if (v.isDoubleList()) {
    auto l = v.toDoubleList();
    w.push_back(kFloats);
    w.push_back(int64_t(l.size()));
    for (double x : l) w.push_back(float_bits(x));
  } else if (v.isBoolList()) {
    auto l = v.toBoolList();
    w.push_back(kBools);
    w.push_back(int64_t(l.size()));
    for (bool x : l) w.push_back(x ? 1 : 0);
  } else if (v.isTensorList()) {
    auto l = v.toTensorList();
    w.push_back(kList);
    w.push_back(int64_t(l.size()));
    for (const at::Tensor& t : l) put_any_tensor(w, t);
  } else if (v.isList()) {
    auto l = v.toList();
    w.push_back(kList);
    w.push_back(int64_t(l.size()));
    for (const c10::IValue& e : l) {
      if (e.isNone()) {
        w.push_back(kNone);
      } else if (e.isTensor()) {
        put_any_tensor(w, e.toTensor());
      } else {
        throw Unsupported("a list of " + e.tagKind());
      }
    }
  } else if (v.isString()) {
    put_str(w, v.toStringRef());
  } else if (v.isDevice()) {
    put_str(w, v.toDevice().str());
  } else if (v.isGenerator()) {
    w.push_back(kNone);
  } else {
    throw Unsupported("an argument of kind " + v.tagKind());
  }
}

}  // namespace torchtpu
