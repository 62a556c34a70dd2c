// The op-table sweep of the User row (issue #23): user element-wise functions for every dtype
// and layout, against reference loops that call the cgrad::scalar helpers the body names, in
// the function's dtype (no product feeds a sum in the exact body: the JIT contracts those into
// fused multiply-adds, docs/jit.md). One body keeps the inputs' dtype (integer arithmetic wraps, comparisons,
// &&, !, ?:), one needs floats (integer inputs become f32); b8 inputs are rejected.
#include "ir/op_table.h"
#include "util.h"

#include <cgrad/scalar.hpp>

#include <functional>

namespace opt {

namespace {

namespace sc = cgrad::scalar;

template <class T>
T ref_keep(T x, T y) {
  const T pick = (x < y && !(y == T(0))) ? y : sc::neg(x);
  return sc::sub(sc::maximum(sc::mul(x, y), T(3)), pick);
}
template <class T>
T ref_float(T x, T y) {
  return sc::add(sc::div(sc::exp(x), sc::add(T(1), sc::mul(y, y))), sc::sqrt(sc::abs(x)));
}

const ElementwiseFn& keep_fn() {
  static const ElementwiseFn f =
      elementwise("sweep_keep", "maximum(x * y, 3) - (x < y && !(y == 0) ? y : -x)", {"x", "y"});
  return f;
}
const ElementwiseFn& float_fn() {
  static const ElementwiseFn f =
      elementwise("sweep_float", "exp(x) / (1 + y * y) + sqrt(abs(x))", {"x", "y"});
  return f;
}

// The integer body in the C type T of a new integer dtype (operands hold the bits in int64).
template <class T>
void push_int_ref(Data& want, const Data& a, std::size_t i, const Data& b, std::size_t j) {
  want.push_int(static_cast<int64_t>(ref_keep(static_cast<T>(a.i[i]), static_cast<T>(b.i[j]))));
}

// Appends the reference value of element (i, j), computed in dtype `c`, to `want`.
void push_ref(Data& want, bool keep, DType c, const Data& a, std::size_t i, const Data& b, std::size_t j) {
  switch (c) {
    case f32: {
      const auto x = static_cast<float>(a.fv(i)), y = static_cast<float>(b.fv(j));
      want.f.push_back(static_cast<double>(keep ? ref_keep(x, y) : ref_float(x, y)));
      return;
    }
    case f64: want.f.push_back(keep ? ref_keep(a.fv(i), b.fv(j)) : ref_float(a.fv(i), b.fv(j))); return;
    case i32: want.i.push_back(ref_keep(static_cast<int32_t>(a.i[i]), static_cast<int32_t>(b.i[j]))); return;
    case i64: want.i.push_back(ref_keep(a.i[i], b.i[j])); return;
    case i8: push_int_ref<int8_t>(want, a, i, b, j); return;
    case i16: push_int_ref<int16_t>(want, a, i, b, j); return;
    case u8: push_int_ref<uint8_t>(want, a, i, b, j); return;
    case u16: push_int_ref<uint16_t>(want, a, i, b, j); return;
    case u32: push_int_ref<uint32_t>(want, a, i, b, j); return;
    case u64: push_int_ref<uint64_t>(want, a, i, b, j); return;
    case f16:
    case bf16: {
      // 16-bit storage, computed in float and rounded once (docs/semantics.md).
      const auto x = static_cast<float>(a.fv(i)), y = static_cast<float>(b.fv(j));
      want.push(static_cast<double>(keep ? ref_keep(x, y) : ref_float(x, y)));
      return;
    }
    case b8:
    case c64:  // complex group: user functions are real (the User row takes no complex)
    case c128: break;
  }
}

}  // namespace

void sweep_user(int op, DType t) {
  ASSERT_EQ(ir::Op(op), ir::Op::User);
  const auto ab = pairs(t, 200, 977);
  const Data& a = ab.first;
  const Data& b = ab.second;
  if (t == b8) {
    Tensor x = make(a, Layout::Contiguous), y = make(b, Layout::Contiguous);
    std::string msg;
    EXPECT_EQ(error_code([&] { keep_fn()({x, y}); }, &msg), ErrorCode::DTypeMismatch);
    EXPECT_NE(msg.find("sweep_keep"), std::string::npos) << msg;
    return;
  }
  const std::pair<Layout, Layout> combos[] = {
      {Layout::Contiguous, Layout::Contiguous}, {Layout::Transposed, Layout::Strided},
      {Layout::ZeroDim, Layout::ZeroDim},       {Layout::Empty, Layout::Empty},
      {Layout::EmptyRows, Layout::EmptyRows},
  };
  for (bool keep : {true, false}) {
    const DType c = keep || is_floating(t) ? t : f32;
    const ElementwiseFn& fn = keep ? keep_fn() : float_fn();
    for (auto [la, lb] : combos) {
      Tensor x = make(a, la), y = make(b, lb);
      Tensor z = fn({x, y});
      EXPECT_EQ(z.dtype(), c);
      EXPECT_EQ(z.shape(), x.shape());
      Data want;
      want.dtype = c;
      for (std::size_t k = 0; k < static_cast<std::size_t>(x.numel()); ++k)
        push_ref(want, keep, c, a, k, b, k);
      expect_values(read(z), want, keep ? 0 : 4,
                    fn.name() + " " + dtype_name(t) + " " + layout_name(la) + " with " + layout_name(lb));
    }
    // Broadcasting: (R, 1) with (8,) -> (R, 8).
    const auto rows = static_cast<int64_t>(a.size() / 8);
    Tensor z = fn({make(a, Shape{rows, 1}), make(b, Shape{8})});
    ASSERT_EQ(z.shape(), (Shape{rows, 8}));
    Data want;
    want.dtype = c;
    for (std::size_t k = 0; k < static_cast<std::size_t>(rows) * 8; ++k)
      push_ref(want, keep, c, a, k / 8, b, k % 8);
    expect_values(read(z), want, keep ? 0 : 4, fn.name() + " broadcast " + dtype_name(t));
  }
}

}  // namespace opt
