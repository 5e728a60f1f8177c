// A tpu tensor as the engine's C ABI sees it: its argument words (buffer,
// dtype, sizes, strides, offset), and the copies of its bytes to and from
// CPU memory.
#include "runtime/device.h"

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

}  // namespace torchtpu
