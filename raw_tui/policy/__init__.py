"""Policy: identity globs, RE2 predicates, binding predicates to schemas, rule evaluation."""

from .binding import check_binding, reaches_string, unreachable_reason
from .glob import MAX_GLOB_CHARS, Glob, compile_glob
from .predicate import Predicate, compile_regex, parse_path, parse_predicate, strings_at
from .rules import EFFECTS, Rule, RuleSet, ToolLike, parse_rule

__all__ = [
    "EFFECTS",
    "MAX_GLOB_CHARS",
    "Glob",
    "Predicate",
    "Rule",
    "RuleSet",
    "ToolLike",
    "check_binding",
    "compile_glob",
    "compile_regex",
    "parse_path",
    "parse_predicate",
    "parse_rule",
    "reaches_string",
    "strings_at",
    "unreachable_reason",
]
