// A recursive-descent evaluator for [roofline] expressions, and fraction of peak.
#include "detail/roofline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace arbiter::server::detail {

namespace {

class expression_parser {
 public:
  expression_parser(std::string_view text, const json& shape) : m_text(text), m_shape(shape) {}

  double parse() {
    const double value = sum();
    skip_space();
    if (m_pos != m_text.size()) fail("unexpected '" + std::string(1, m_text[m_pos]) + "'");
    return value;
  }

 private:
  double sum() {
    double value = product();
    while (true) {
      if (accept("+")) value += product();
      else if (accept("-")) value -= product();
      else return value;
    }
  }
  double product() {
    double value = power();
    while (true) {
      if (accept("*")) value *= power();
      else if (accept("/")) value /= power();
      else return value;
    }
  }
  double power() {
    const double base = unary();
    if (accept("**")) return std::pow(base, power()); // right-associative
    return base;
  }
  double unary() {
    if (accept("-")) return -unary();
    if (accept("(")) {
      const double value = sum();
      if (!accept(")")) fail("missing ')'");
      return value;
    }
    return atom();
  }
  double atom() {
    skip_space();
    const std::size_t start = m_pos;
    if (m_pos < m_text.size() && (std::isdigit(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '.')) {
      while (m_pos < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '.')) ++m_pos;
      return std::stod(std::string(m_text.substr(start, m_pos - start)));
    }
    while (m_pos < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_')) ++m_pos;
    const std::string name(m_text.substr(start, m_pos - start));
    if (name.empty()) fail("expected a number or a shape key");
    const auto it = m_shape.find(name);
    if (it == m_shape.end() || !it->is_number()) fail("shape has no number '" + name + "'");
    return it->get<double>();
  }
  bool accept(std::string_view token) {
    skip_space();
    if (m_text.substr(m_pos, token.size()) != token) return false;
    if (token == "*" && m_text.substr(m_pos, 2) == "**") return false;
    m_pos += token.size();
    return true;
  }
  void skip_space() {
    while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) ++m_pos;
  }
  [[noreturn]] void fail(const std::string& why) const {
    ARB_THROW(config_error, fmt::format("roofline expression '{}' at {}: {}", m_text, m_pos, why));
  }

  std::string_view m_text;
  const json& m_shape;
  std::size_t m_pos = 0;
};

const json* find_shape(const json& spec, const std::string& name) {
  const auto shapes = spec.find("shapes");
  if (shapes == spec.end() || !shapes->is_array()) return nullptr;
  for (const json& shape : *shapes)
    if (shape.is_object() && shape.value("name", "") == name) return &shape;
  return nullptr;
}

} // namespace

double evaluate_expression(std::string_view expression, const json& shape) {
  return expression_parser(expression, shape).parse();
}

std::optional<work> work_of(const json& problem_spec, const std::string& shape_name) {
  const auto roofline = problem_spec.find("roofline");
  if (roofline == problem_spec.end() || !roofline->is_object()) return std::nullopt;
  const json* shape = find_shape(problem_spec, shape_name);
  if (!shape) return std::nullopt;
  try {
    return work{evaluate_expression(roofline->value("flops", "0"), *shape),
                evaluate_expression(roofline->value("bytes", "0"), *shape)};
  } catch (const config_error&) {
    return std::nullopt; // a page shows "not measured" rather than failing on one bad expression
  }
}

std::optional<peaks> peaks_of(const json& hardware, const std::string& dtype) {
  const auto found = hardware.find("peaks");
  if (found == hardware.end() || !found->is_object()) return std::nullopt;
  const json& p = *found;
  const auto flops = p.find("flops_per_s");
  const auto bytes = p.find("bytes_per_s");
  if (flops == p.end() || !flops->is_object() || bytes == p.end() || !bytes->is_number()) return std::nullopt;
  const auto for_dtype = flops->find(dtype);
  if (for_dtype == flops->end() || !for_dtype->is_number()) return std::nullopt;
  peaks out{for_dtype->get<double>(), bytes->get<double>()};
  if (!(out.flops_per_s > 0) || !(out.bytes_per_s > 0)) return std::nullopt;
  return out;
}

double fraction_of_peak(const work& w, double seconds, const peaks& p) {
  if (!(seconds > 0)) return 0;
  return std::max(w.flops / seconds / p.flops_per_s, w.bytes / seconds / p.bytes_per_s);
}

} // namespace arbiter::server::detail
