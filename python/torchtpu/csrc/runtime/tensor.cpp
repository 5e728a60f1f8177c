// A tpu tensor as the engine's C ABI sees it: its argument words (buffer,
// dtype, sizes, strides, offset), and the copies of its bytes to and from
// CPU memory.
#include "runtime/device.h"

#include <cstring>

namespace torchtpu {

void put_tensor(std::vector<int64_t>& w, const at::Tensor& t) {
  w.push_back(kTensor);
  w.push_back(int64_t(handle(t)));
  w.push_back(int64_t(t.scalar_type()));
  w.push_back(t.dim());
  w.push_back(t.storage_offset());
  for (auto s : t.sizes()) w.push_back(s);
  for (auto s : t.strides()) w.push_back(s);
}

// raw_dtype is a dtype the engine stores whose elements have t's size, for
// moving bytes of a dtype the engine does not compute with (complex32, ...).
static int64_t raw_dtype(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kComplexHalf:
    case at::kQInt8:
    case at::kQUInt8:
    case at::kQInt32:
    case at::kQUInt4x2:
    case at::kQUInt2x4:
      break;
    default:
      if (int64_t(t.scalar_type()) < 30 && !(int64_t(t.scalar_type()) >= 16 && int64_t(t.scalar_type()) <= 22))
        return int64_t(t.scalar_type());
  }
  switch (t.element_size()) {
    case 1:
      return int64_t(at::kByte);
    case 2:
      return int64_t(at::kShort);
    case 4:
      return int64_t(at::kInt);
    case 8:
      return int64_t(at::kLong);
    default:
      return int64_t(at::kComplexDouble);
  }
}

static void put_raw(std::vector<int64_t>& w, const at::Tensor& t) {
  put_tensor(w, t);
  w[2] = raw_dtype(t);
}

void read_tensor(const at::Tensor& t, void* dst, int64_t nbytes) {
  std::vector<int64_t> w;
  put_raw(w, t);
  char* err = nullptr;
  int64_t rc = abi.tensor_read(w.data(), int32_t(w.size()), dst, nbytes, &err);
  check(rc, err, "tt_tensor_read");
}

void write_tensor(const at::Tensor& t, const void* src, int64_t nbytes) {
  std::vector<int64_t> w;
  put_raw(w, t);
  char* err = nullptr;
  int64_t rc = abi.tensor_write(w.data(), int32_t(w.size()), src, nbytes, &err);
  check(rc, err, "tt_tensor_write");
}

int64_t float_bits(double d) {
  int64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

// A CPU 0-d tensor in a tpu op (a Python number PyTorch wrapped, or a CPU
// scalar tensor): its value travels in the words.
static void put_scalar(std::vector<int64_t>& w, const at::Tensor& t) {
  w.push_back(kScalar);
  w.push_back(int64_t(t.scalar_type()));
  w.push_back(t.unsafeGetTensorImpl()->is_wrapped_number() ? 1 : 0);
  const void* p = t.const_data_ptr();
  int64_t v1 = 0, v2 = 0;
  switch (t.scalar_type()) {
    case at::kDouble:
      std::memcpy(&v1, p, 8);
      break;
    case at::kFloat:
      v1 = float_bits(*static_cast<const float*>(p));
      break;
    case at::kHalf:
      v1 = float_bits(float(*static_cast<const at::Half*>(p)));
      break;
    case at::kBFloat16:
      v1 = float_bits(float(*static_cast<const at::BFloat16*>(p)));
      break;
    case at::kComplexDouble: {
      auto c = *static_cast<const c10::complex<double>*>(p);
      v1 = float_bits(c.real());
      v2 = float_bits(c.imag());
      break;
    }
    case at::kComplexFloat: {
      auto c = *static_cast<const c10::complex<float>*>(p);
      v1 = float_bits(c.real());
      v2 = float_bits(c.imag());
      break;
    }
    case at::kLong:
      v1 = *static_cast<const int64_t*>(p);
      break;
    case at::kInt:
      v1 = *static_cast<const int32_t*>(p);
      break;
    case at::kShort:
      v1 = *static_cast<const int16_t*>(p);
      break;
    case at::kChar:
      v1 = *static_cast<const int8_t*>(p);
      break;
    case at::kByte:
      v1 = *static_cast<const uint8_t*>(p);
      break;
    case at::kBool:
      v1 = *static_cast<const bool*>(p) ? 1 : 0;
      break;
    default: {
      at::Scalar s = t.item();
      if (s.isFloatingPoint()) {
        v1 = float_bits(s.toDouble());
      } else {
        v1 = s.toLong();
      }
    }
  }
  w.push_back(v1);
  w.push_back(v2);
}

static void put_host_tensor(std::vector<int64_t>& w, const at::Tensor& t) {
  w.push_back(kHostTensor);
  const void* p = t.const_data_ptr();
  int64_t ptr;
  std::memcpy(&ptr, &p, sizeof(p));
  w.push_back(t.numel() ? ptr : 0);
  w.push_back(int64_t(t.storage().nbytes()) - t.storage_offset() * int64_t(t.element_size()));
  w.push_back(int64_t(t.scalar_type()));
  w.push_back(t.dim());
  for (auto s : t.sizes()) w.push_back(s);
  for (auto s : t.strides()) w.push_back(s);
}

void put_any_tensor(std::vector<int64_t>& w, const at::Tensor& t) {
  if (!t.defined()) {
    w.push_back(kNone);
  } else if (t.device().type() == kTPU) {
    put_tensor(w, t);
  } else if (t.is_cpu() && t.dim() == 0) {
    put_scalar(w, t);
  } else if (t.is_cpu()) {
    put_host_tensor(w, t);
  } else {
    throw Unsupported(std::string("a tensor on ") + t.device().str());
  }
}

at::Tensor new_tensor(uint64_t h, at::ScalarType dt, c10::IntArrayRef sizes) {
  int64_t n = int64_t(c10::elementSize(dt));
  for (auto s : sizes) n *= s;
  at::Tensor t = at::detail::make_tensor<c10::TensorImpl>(new_storage(h, n),
                                                          c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                                          c10::scalarTypeToTypeMeta(dt));
  t.unsafeGetTensorImpl()->set_sizes_contiguous(sizes);
  return t;
}


}  // namespace torchtpu
