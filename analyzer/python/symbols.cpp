#include <cstring>

#include "analyzer/python/builder.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace gpulint::python {

Symbols::Symbols(const TSLanguage* lang) {
  auto sym = [&](const char* name, bool named = true) {
    return ts_language_symbol_for_name(lang, name, static_cast<uint32_t>(std::strlen(name)), named);
  };
  auto field = [&](const char* name) {
    return ts_language_field_id_for_name(lang, name, static_cast<uint32_t>(std::strlen(name)));
  };
  module = sym("module");
  function_definition = sym("function_definition");
  class_definition = sym("class_definition");
  decorated_definition = sym("decorated_definition");
  decorator = sym("decorator");
  for_statement = sym("for_statement");
  while_statement = sym("while_statement");
  if_statement = sym("if_statement");
  elif_clause = sym("elif_clause");
  else_clause = sym("else_clause");
  try_statement = sym("try_statement");
  except_clause = sym("except_clause");
  except_group_clause = sym("except_group_clause");
  finally_clause = sym("finally_clause");
  with_statement = sym("with_statement");
  assert_statement = sym("assert_statement");
  with_clause = sym("with_clause");
  with_item = sym("with_item");
  call = sym("call");
  attribute = sym("attribute");
  identifier = sym("identifier");
  keyword_argument = sym("keyword_argument");
  assignment = sym("assignment");
  augmented_assignment = sym("augmented_assignment");
  return_statement = sym("return_statement");
  yield = sym("yield");
  comment = sym("comment");
  argument_list = sym("argument_list");
  string = sym("string");
  integer = sym("integer");
  float_ = sym("float");
  true_ = sym("true");
  false_ = sym("false");
  none = sym("none");
  subscript = sym("subscript");
  binary_operator = sym("binary_operator");
  comparison_operator = sym("comparison_operator");
  boolean_operator = sym("boolean_operator");
  not_operator = sym("not_operator");
  unary_operator = sym("unary_operator");
  parenthesized_expression = sym("parenthesized_expression");
  dictionary = sym("dictionary");
  pair = sym("pair");
  dictionary_splat = sym("dictionary_splat");
  list_splat = sym("list_splat");
  conditional_expression = sym("conditional_expression");
  lambda = sym("lambda");
  pattern_list = sym("pattern_list");
  expression_statement = sym("expression_statement");
  tuple_pattern = sym("tuple_pattern");
  expression_list = sym("expression_list");
  tuple = sym("tuple");
  list_pattern = sym("list_pattern");
  list = sym("list");
  generator_expression = sym("generator_expression");
  for_in_clause = sym("for_in_clause");
  typed_parameter = sym("typed_parameter");
  default_parameter = sym("default_parameter");
  typed_default_parameter = sym("typed_default_parameter");
  block = sym("block");
  concatenated_string = sym("concatenated_string");
  import_statement = sym("import_statement");
  import_from_statement = sym("import_from_statement");
  aliased_import = sym("aliased_import");
  dotted_name = sym("dotted_name");
  relative_import = sym("relative_import");
  wildcard_import = sym("wildcard_import");
  break_statement = sym("break_statement");
  continue_statement = sym("continue_statement");
  raise_statement = sym("raise_statement");
  f_body = field("body");
  f_name = field("name");
  f_superclasses = field("superclasses");
  f_left = field("left");
  f_right = field("right");
  f_condition = field("condition");
  f_consequence = field("consequence");
  f_alternative = field("alternative");
  f_value = field("value");
  f_function = field("function");
  f_arguments = field("arguments");
  f_object = field("object");
  f_attribute = field("attribute");
  f_parameters = field("parameters");
  f_definition = field("definition");
  f_operator = field("operator");
  f_argument = field("argument");
  f_subscript = field("subscript");
  f_key = field("key");
  f_alias = field("alias");
  f_module_name = field("module_name");
  f_type = field("type");
}

const Symbols& symbols() {
  static const Symbols s(tree_sitter_python());
  return s;
}

}  // namespace gpulint::python
