// einsum (NumPy's): subscripts parsed into one label per dim (letters; `...` for broadcast dims,
// aligned from the right across operands), then composed from the fused ops. A label repeated in
// one operand takes the diagonal (two dims moved last, flattened, read with a step of n + 1); a
// label only one operand has and the output lacks is summed at once; operands are contracted left
// to right, each pair by one batched matmul (batch labels first, the contracted ones inner) after
// permute and reshape views; the last result is permuted to the output's order. Nothing here is
// an op of its own: einsum fuses, differentiates and runs on every device like its parts.
#include <cgrad/manipulation.hpp>

#include "frontend/build.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string>

namespace cgrad {

namespace {

using Labels = std::vector<int>;

// Letters are labels 0-51; broadcast dims take kEllipsis + k, k counted from the right.
constexpr int kEllipsis = 1000;

Error bad(const std::string& msg) { return Error(ErrorCode::InvalidArgument, "einsum: " + msg); }

int letter(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  throw bad(std::string("subscripts take letters and '...', got '") + c + "'");
}

std::string label_name(int l) {
  if (l >= kEllipsis) return "broadcast dim " + std::to_string(l - kEllipsis) + " (from the right)";
  return std::string("subscript '") + static_cast<char>(l < 26 ? 'a' + l : 'A' + (l - 26)) + "'";
}

// The labels of one term (an operand's, or the output's with ndim = the broadcast dims' count
// where `...` stands). `...` expands to ndim - (letters) labels.
Labels parse_term(const std::string& term, int64_t ndim, bool output, int64_t& ellipsis_dims) {
  const std::size_t at = term.find("...");
  if (at != std::string::npos && term.find("...", at + 1) != std::string::npos)
    throw bad("'" + term + "' has more than one '...'");
  std::string letters = term;
  if (at != std::string::npos) letters.erase(at, 3);
  const auto n_letters = static_cast<int64_t>(letters.size());
  Labels out;
  if (at == std::string::npos) {
    if (!output && n_letters != ndim)
      throw bad("'" + term + "' names " + std::to_string(n_letters) + " dims of an operand with " +
                std::to_string(ndim));
    for (char c : letters) out.push_back(letter(c));
    return out;
  }
  const int64_t e = output ? ellipsis_dims : ndim - n_letters;
  if (e < 0)
    throw bad("'" + term + "' names " + std::to_string(n_letters) + " dims of an operand with " +
              std::to_string(ndim));
  if (!output) ellipsis_dims = std::max(ellipsis_dims, e);
  for (std::size_t i = 0; i < at; ++i) out.push_back(letter(term[i]));
  for (int64_t k = e - 1; k >= 0; --k) out.push_back(kEllipsis + static_cast<int>(k));
  for (std::size_t i = at + 3; i < term.size(); ++i) out.push_back(letter(term[i]));
  return out;
}

struct Operand {
  Tensor x;
  Labels labels;
};

int64_t position(const Labels& l, int label) {
  return static_cast<int64_t>(std::find(l.begin(), l.end(), label) - l.begin());
}

bool has(const Labels& l, int label) { return std::find(l.begin(), l.end(), label) != l.end(); }

// A label repeated in one operand: its diagonal, the label once, last.
void take_diagonals(Operand& o) {
  for (std::size_t i = 0; i < o.labels.size(); ++i)
    for (std::size_t j = i + 1; j < o.labels.size(); ++j) {
      if (o.labels[i] != o.labels[j]) continue;
      const int64_t n = o.x.shape()[i];
      if (o.x.shape()[j] != n)
        throw Error(ErrorCode::ShapeMismatch,
                    "einsum: a repeated subscript's dims differ: " + std::to_string(n) + " and " +
                        std::to_string(o.x.shape()[j]));
      const auto nd = static_cast<int64_t>(o.labels.size());
      Tensor y = moveaxis(o.x, {static_cast<int64_t>(i), static_cast<int64_t>(j)}, {nd - 2, nd - 1});
      Shape flat(y.shape().begin(), y.shape().end() - 2);
      flat.push_back(n * n);
      o.x = n == 0 ? y.reshape(flat).slice(-1, 0, 0) : y.reshape(flat).slice(-1, 0, n * n, n + 1);
      const int label = o.labels[i];
      o.labels.erase(o.labels.begin() + static_cast<std::ptrdiff_t>(j));
      o.labels.erase(o.labels.begin() + static_cast<std::ptrdiff_t>(i));
      o.labels.push_back(label);
      take_diagonals(o);
      return;
    }
}

// Sums the labels `keep` rejects.
void sum_out(Operand& o, const std::function<bool(int)>& keep) {
  std::vector<int64_t> axes;
  Labels left;
  for (std::size_t d = 0; d < o.labels.size(); ++d) {
    if (keep(o.labels[d]))
      left.push_back(o.labels[d]);
    else
      axes.push_back(static_cast<int64_t>(d));
  }
  if (axes.empty()) return;
  // (an integer sum gives i64 or u64: cast back, so the result's dtype is NumPy's, the operands'
  // promoted, whichever letters are summed; the low bits of the wider sum are the wrapped sum)
  const DType dt = o.x.dtype();
  o.x = sum(o.x, axes);
  if (is_integer(dt)) o.x = o.x.cast(dt);
  o.labels = left;
}

// o.x with its dims in the order of `order` (a permutation of its labels): a view.
Tensor arrange(const Operand& o, const Labels& order) {
  std::vector<int64_t> perm;
  for (int l : order) perm.push_back(position(o.labels, l));
  return o.x.permute(perm);
}

int64_t product(const Shape& s, std::size_t from, std::size_t to) {
  int64_t p = 1;
  for (std::size_t i = from; i < to; ++i) p *= s[i];
  return p;
}

// a and b contracted over their shared labels that `later` does not need: one batched matmul.
Operand contract(Operand a, Operand b, const std::function<bool(int)>& later) {
  Labels batch, contracted, a_free, b_free;
  for (int l : a.labels) {
    if (!has(b.labels, l))
      a_free.push_back(l);
    else if (later(l))
      batch.push_back(l);
    else
      contracted.push_back(l);
  }
  for (int l : b.labels)
    if (!has(a.labels, l)) b_free.push_back(l);
  // a contracted broadcast dim of size 1 on one side meets the other side's size
  for (int l : contracted) {
    const int64_t sa = a.x.shape()[static_cast<std::size_t>(position(a.labels, l))];
    const int64_t sb = b.x.shape()[static_cast<std::size_t>(position(b.labels, l))];
    if (sa == sb) continue;
    Operand& small = sa == 1 ? a : b;
    Shape to = small.x.shape();
    to[static_cast<std::size_t>(position(small.labels, l))] = sa == 1 ? sb : sa;
    small.x = small.x.expand(to);
  }
  Labels a_order = batch, b_order = batch;
  a_order.insert(a_order.end(), a_free.begin(), a_free.end());
  a_order.insert(a_order.end(), contracted.begin(), contracted.end());
  b_order.insert(b_order.end(), contracted.begin(), contracted.end());
  b_order.insert(b_order.end(), b_free.begin(), b_free.end());
  const Tensor at = arrange(a, a_order), bt = arrange(b, b_order);
  const std::size_t nb = batch.size(), nfa = a_free.size(), nc = contracted.size();
  const Shape& sa = at.shape();
  const Shape& sb = bt.shape();
  Shape a2(sa.begin(), sa.begin() + static_cast<std::ptrdiff_t>(nb)),
      b2(sb.begin(), sb.begin() + static_cast<std::ptrdiff_t>(nb));
  a2.insert(a2.end(), {product(sa, nb, nb + nfa), product(sa, nb + nfa, sa.size())});
  b2.insert(b2.end(), {product(sb, nb, nb + nc), product(sb, nb + nc, sb.size())});
  const Tensor r = matmul(at.reshape(a2), bt.reshape(b2));
  Shape out(r.shape().begin(), r.shape().begin() + static_cast<std::ptrdiff_t>(nb));  // broadcast batch
  out.insert(out.end(), sa.begin() + static_cast<std::ptrdiff_t>(nb),
             sa.begin() + static_cast<std::ptrdiff_t>(nb + nfa));
  out.insert(out.end(), sb.begin() + static_cast<std::ptrdiff_t>(nb + nc), sb.end());
  Labels labels = batch;
  labels.insert(labels.end(), a_free.begin(), a_free.end());
  labels.insert(labels.end(), b_free.begin(), b_free.end());
  return {r.reshape(out), labels};
}

}  // namespace

Tensor einsum(std::string_view subscripts, const std::vector<Tensor>& operands) {
  std::string spec;
  for (char c : subscripts)
    if (c != ' ') spec += c;
  const std::size_t arrow = spec.find("->");
  const std::string inputs = spec.substr(0, arrow);
  std::vector<std::string> terms;
  for (std::size_t start = 0;;) {
    const std::size_t comma = inputs.find(',', start);
    terms.push_back(inputs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != operands.size())
    throw bad("subscripts '" + std::string(subscripts) + "' name " + std::to_string(terms.size()) +
              " operands, got " + std::to_string(operands.size()));
  int64_t ellipsis_dims = 0;
  std::vector<Operand> ops;
  std::map<int, int64_t> sizes;  // each letter's size; broadcast labels: the broadcast size
  for (std::size_t i = 0; i < operands.size(); ++i) {
    frontend::node_of(operands[i], "einsum");
    Operand o{operands[i], parse_term(terms[i], operands[i].ndim(), false, ellipsis_dims)};
    for (std::size_t d = 0; d < o.labels.size(); ++d) {
      const int l = o.labels[d];
      const int64_t n = o.x.shape()[d];
      auto [it, fresh] = sizes.emplace(l, n);
      if (fresh || it->second == n) continue;
      if (l >= kEllipsis && (it->second == 1 || n == 1)) {
        it->second = std::max(it->second, n);
        continue;
      }
      throw Error(ErrorCode::ShapeMismatch, "einsum: " + label_name(l) + " of operand " + std::to_string(i) +
                                                " has size " + std::to_string(n) +
                                                " where another operand's has " + std::to_string(it->second));
    }
    ops.push_back(std::move(o));
  }
  // the output: given, or (implicit) the broadcast dims, then the letters used once, sorted
  Labels out;
  if (arrow != std::string::npos) {
    out = parse_term(spec.substr(arrow + 2), 0, true, ellipsis_dims);
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (!sizes.count(out[i]) && out[i] < kEllipsis)
        throw bad("the output subscript '" + spec.substr(arrow + 2) + "' names a label no operand has");
      for (std::size_t j = 0; j < i; ++j)
        if (out[i] == out[j])
          throw bad("the output subscript '" + spec.substr(arrow + 2) + "' repeats a label");
    }
  } else {
    for (int64_t k = ellipsis_dims - 1; k >= 0; --k) out.push_back(kEllipsis + static_cast<int>(k));
    std::map<int, int> count;
    for (const Operand& o : ops)
      for (int l : o.labels) ++count[l];
    for (auto [l, c] : count)
      if (l < kEllipsis && c == 1) out.push_back(l);
  }
  // diagonals, then the labels only one operand has and the output lacks
  for (std::size_t i = 0; i < ops.size(); ++i) {
    take_diagonals(ops[i]);
    sum_out(ops[i], [&](int l) {
      if (has(out, l)) return true;
      for (std::size_t j = 0; j < ops.size(); ++j)
        if (j != i && has(ops[j].labels, l)) return true;
      return false;
    });
  }
  while (ops.size() > 1) {
    Operand r = contract(ops[0], ops[1], [&](int l) {
      if (has(out, l)) return true;
      for (std::size_t j = 2; j < ops.size(); ++j)
        if (has(ops[j].labels, l)) return true;
      return false;
    });
    ops.erase(ops.begin(), ops.begin() + 2);
    ops.insert(ops.begin(), std::move(r));
  }
  return arrange(ops[0], out);  // every label left is the output's
}

}  // namespace cgrad
