// A small tokenizer for Python and CUDA/C++: enough to read a kernel, not a parser.
#include "detail/code_view.hpp"
#include "detail/html.hpp"

#include <cctype>
#include <set>

namespace arbiter::server::detail {

namespace {

const std::set<std::string_view, std::less<>> k_python_keywords{
    "False",  "None",     "True", "and",    "as",      "assert", "async",  "await",  "break", "class",  "continue", "def",
    "del",    "elif",     "else", "except", "finally", "for",    "from",   "global", "if",    "import", "in",       "is",
    "lambda", "nonlocal", "not",  "or",     "pass",    "raise",  "return", "try",    "while", "with",   "yield"};
const std::set<std::string_view, std::less<>> k_python_builtins{"self",  "len",    "range", "print", "int", "float",     "super",
                                                                "torch", "triton", "tl",    "nn",    "F",   "isinstance"};
const std::set<std::string_view, std::less<>> k_c_keywords{
    "auto",   "bool",     "break",   "case",       "char",       "const",    "constexpr",  "continue",     "default",
    "do",     "double",   "else",    "enum",       "extern",     "false",    "float",      "for",          "if",
    "inline", "int",      "long",    "namespace",  "nullptr",    "return",   "short",      "signed",       "sizeof",
    "static", "struct",   "switch",  "template",   "true",       "typedef",  "typename",   "unsigned",     "using",
    "void",   "volatile", "while",   "__global__", "__device__", "__host__", "__shared__", "__restrict__", "__syncthreads",
    "size_t", "int64_t",  "int32_t", "half",       "float4"};
const std::set<std::string_view, std::less<>> k_c_builtins{"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"};

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

class tokenizer {
 public:
  tokenizer(std::string_view text, bool python) : m_text(text), m_python(python) {}

  std::string run() {
    while (m_pos < m_text.size()) step();
    return m_out;
  }

 private:
  void step() {
    const std::string_view rest = m_text.substr(m_pos);
    const char c = rest.front();
    if (m_python && c == '#') return span("t-c", line_end());
    if (!m_python && rest.starts_with("//")) return span("t-c", line_end());
    if (!m_python && rest.starts_with("/*")) return span("t-c", until("*/", 2));
    if (!m_python && c == '#' && at_line_start()) return span("t-p", line_end());
    if (m_python && (rest.starts_with("\"\"\"") || rest.starts_with("'''"))) return span("t-s", until(rest.substr(0, 3), 3));
    if (c == '"' || c == '\'') return span("t-s", quoted(c));
    if (std::isdigit(static_cast<unsigned char>(c))) return span("t-n", number());
    if (m_python && c == '@') return span("t-b", word_after(1));
    if (ident_start(c)) return word();
    m_out += escape(rest.substr(0, 1));
    ++m_pos;
  }
  void word() {
    const std::size_t len = word_after(0);
    const std::string_view w = m_text.substr(m_pos, len);
    const auto& keywords = m_python ? k_python_keywords : k_c_keywords;
    const auto& builtins = m_python ? k_python_builtins : k_c_builtins;
    if (keywords.count(w)) return span("t-k", len);
    if (builtins.count(w)) return span("t-b", len);
    m_out += escape(w);
    m_pos += len;
  }
  void span(const char* cls, std::size_t len) {
    m_out += "<span class=\"";
    m_out += cls;
    m_out += "\">" + escape(m_text.substr(m_pos, len)) + "</span>";
    m_pos += len;
  }
  std::size_t line_end() const {
    const std::size_t end = m_text.find('\n', m_pos);
    return (end == std::string_view::npos ? m_text.size() : end) - m_pos;
  }
  std::size_t until(std::string_view close, std::size_t open_len) const {
    const std::size_t end = m_text.find(close, m_pos + open_len);
    return end == std::string_view::npos ? m_text.size() - m_pos : end + close.size() - m_pos;
  }
  std::size_t quoted(char quote) const {
    std::size_t idx = m_pos + 1;
    while (idx < m_text.size() && m_text[idx] != quote && m_text[idx] != '\n') idx += m_text[idx] == '\\' ? 2 : 1;
    return std::min(idx + 1, m_text.size()) - m_pos;
  }
  std::size_t number() const {
    std::size_t idx = m_pos;
    while (idx < m_text.size() && (ident_char(m_text[idx]) || m_text[idx] == '.')) ++idx;
    return idx - m_pos;
  }
  std::size_t word_after(std::size_t skip) const {
    std::size_t idx = m_pos + skip;
    while (idx < m_text.size() && (ident_char(m_text[idx]) || (skip && m_text[idx] == '.'))) ++idx;
    return idx - m_pos;
  }
  bool at_line_start() const {
    for (std::size_t idx = m_pos; idx > 0; --idx) {
      if (m_text[idx - 1] == '\n') return true;
      if (!std::isspace(static_cast<unsigned char>(m_text[idx - 1]))) return false;
    }
    return true;
  }

  std::string_view m_text;
  bool m_python;
  std::size_t m_pos = 0;
  std::string m_out;
};

} // namespace

std::string highlight(std::string_view text, std::string_view language) {
  if (language == "python") return tokenizer(text, true).run();
  if (language == "cuda" || language == "cpp") return tokenizer(text, false).run();
  return escape(text);
}

} // namespace arbiter::server::detail
