#!/usr/bin/env python3
"""Writes Sources/ChronicleQuery/Generated/JoinedSelects.swift: `Select2`
to `Select5` (selects over two to five joined tables), their
clauses and `select` overloads, the `join`, `leftJoin`, `rightJoin` and
`fullJoin` methods that lead from one to the next, and their sectioned
forms (what `FetchAll(…, sectionBy:)` fetches).

Parameter packs would say this once, but Swift 6.3.1 crashes in SILGen on
pack-typed closures of this shape (see generate-selection-overloads.py), so
each arity is spelled out. Run from the package root.
"""
import os

MAX_SOURCES = 5
MAX_COLUMNS = 6
letters = "ABCDEF"


def output_of(types):
    return "(" + ", ".join(f"{t}.QueryValue.QueryOutput" for t in types) + ")"


def decode_of(types):
    return "(" + ", ".join(f"try {t}.QueryValue(decoder: &decoder).queryOutput" for t in types) + ")"


def joined_struct(k):
    cs = [f"C{i}" for i in range(k)]
    params = ", ".join(cs)
    constraints = ", ".join(f"C{i}.QueryValue: QueryRepresentable" for i in range(k))
    closure = "(" + ", ".join(cs) + ")"
    call = ", ".join(f"sources.{i}" for i in range(k))
    dollar = ", ".join(f"${i}" for i in range(k))
    selects = []
    for n in range(1, MAX_COLUMNS + 1):
        names = letters[:n]
        generics = ", ".join(f"{c}: QueryExpression" for c in names)
        where = ", ".join(f"{c}.QueryValue: QueryRepresentable" for c in names)
        result = names[0] if n == 1 else "(" + ", ".join(names) + ")"
        out = f"{names[0]}.QueryValue.QueryOutput" if n == 1 else "(" + ", ".join(f"{c}.QueryValue.QueryOutput" for c in names) + ")"
        # `Columns(…)` selected names its columns (`AS "date"`).
        fragments = "[selectedFragment(values)]" if n == 1 else "[" + ", ".join(f"selectedFragment(values.{i})" for i in range(n)) + "]"
        decode = f"try {names[0]}.QueryValue(decoder: &decoder).queryOutput" if n == 1 else "(" + ", ".join(f"try {c}.QueryValue(decoder: &decoder).queryOutput" for c in names) + ")"
        what = "one expression" if n == 1 else f"{n} expressions, as a tuple"
        selects.append(f"""  /// Selects {what}.
  public func select<{generics}>(
    _ columns: {closure} -> {result}
  ) -> Select{k}<{params}, {out}> where {where} {{
    let values = columns({call})
    return selecting({fragments}) {{ decoder in {decode} }}
  }}
""")
    selects = "\n".join(selects)
    return f"""/// A SELECT over {k} joined tables. Closures get one argument per table,
/// in join order: `{{ {dollar} in ... }}`; the nullable side of an outer join
/// is a ``NullableColumns``. Without `select`, each row is a tuple of the
/// tables' rows (`T?` for a nullable side).
public struct Select{k}<{params}, Output>: SelectStatement, @unchecked Sendable
where {", ".join(f"C{i}: QueryExpression & Sendable" for i in range(k))}, {constraints} {{
  public typealias QueryValue = Output
  var clauses: SelectClauses
  let sources: {closure}
  let decode: (inout SQLiteQueryDecoder) throws -> Output

  init(clauses: SelectClauses, sources: {closure}, decode: @escaping (inout SQLiteQueryDecoder) throws -> Output) {{
    self.clauses = clauses
    self.sources = sources
    self.decode = decode
  }}

  public var tableName: String? {{ nil }}
  public var query: QueryFragment {{ clauses.query }}
  public func decodeRow(_ decoder: inout SQLiteQueryDecoder) throws -> Output {{ try decode(&decoder) }}

  private func with(_ change: (inout SelectClauses) -> Void) -> Self {{
    var copy = self
    change(&copy.clauses)
    return copy
  }}

  /// Adds a condition (AND-ed with the others).
  @_disfavoredOverload
  public func `where`(_ predicate: {closure} -> some QueryExpression<Bool>) -> Self {{
    with {{ $0.conditions.append(predicate({call}).queryFragment) }}
  }}

  /// Adds the conditions a closure gives, written with `if`, `switch` or `for`.
  public func `where`(@QueryFragmentBuilder<Bool> _ predicate: {closure} -> [QueryFragment]) -> Self {{
    with {{ $0.conditions += predicate({call}) }}
  }}

  /// Groups rows by terms: `.group {{ $0.id }}`.
  public func group<each Term: QueryExpression>(by terms: {closure} -> (repeat each Term)) -> Self {{
    let values = terms({call})
    var fragments: [QueryFragment] = []
    for term in repeat each values {{ fragments.append(term.queryFragment) }}
    return with {{ $0.grouping += fragments }}
  }}

  /// Adds a condition on groups (HAVING), AND-ed with the others.
  @_disfavoredOverload
  public func having(_ predicate: {closure} -> some QueryExpression<Bool>) -> Self {{
    with {{ $0.groupConditions.append(predicate({call}).queryFragment) }}
  }}

  /// Adds the conditions on groups a closure gives, written with `if`, `switch` or `for`.
  public func having(@QueryFragmentBuilder<Bool> _ predicate: {closure} -> [QueryFragment]) -> Self {{
    with {{ $0.groupConditions += predicate({call}) }}
  }}

  /// Orders by terms: `.order {{ ($1.title, $0.title.desc()) }}`.
  @_disfavoredOverload
  public func order<each Term: QueryExpression>(by terms: {closure} -> (repeat each Term)) -> Self {{
    let values = terms({call})
    var fragments: [QueryFragment] = []
    for term in repeat each values {{ fragments.append(term.queryFragment) }}
    return with {{ $0.ordering += fragments }}
  }}

  /// Orders by the terms a closure gives, written with `if` or `switch`.
  public func order(@QueryFragmentBuilder<Void> by terms: {closure} -> [QueryFragment]) -> Self {{
    with {{ $0.ordering += terms({call}) }}
  }}

  /// At most `count` rows (`nil` for no limit), after skipping `offset` rows.
  public func limit(_ count: Int?, offset: Int? = nil) -> Self {{
    with {{
      $0.limit = count?.queryFragment
      if let offset {{ $0.offset = offset.queryFragment }}
    }}
  }}

  /// At most as many rows as an expression gives (`.limit {{ r, _ in r.title.length() }}`),
  /// after skipping what `offset` gives.
  public func limit(
    _ count: {closure} -> some QueryExpression<Int>, offset: ({closure} -> any QueryExpression<Int>)? = nil
  ) -> Self {{
    with {{
      $0.limit = count({call}).queryFragment
      if let offset {{ $0.offset = offset({call}).queryFragment }}
    }}
  }}

  /// Skips the first `count` rows.
  public func offset(_ count: Int) -> Self {{ with {{ $0.offset = count.queryFragment }} }}

  /// Drops duplicate rows.
  public func distinct(_ isDistinct: Bool = true) -> Self {{ with {{ $0.isDistinct = isDistinct }} }}

  /// The number of rows (of groups, after `group`).
  public func count() -> Select{k}<{params}, Int> {{
    Select{k}<{params}, Int>(clauses: clauses.counting, sources: sources) {{ decoder in try Int(decoder: &decoder) }}
  }}

  /// The number of rows that match `filter`: `count(*) FILTER (WHERE …)`,
  /// `.count {{ r, _ in r.isCompleted }}` (per group, after `group`).
  public func count(filter: {closure} -> some QueryExpression<Bool>) -> Select{k}<{params}, Int> {{
    selecting([QueryFragment("count(*) FILTER (WHERE ") + filter({call}).queryFragment + QueryFragment(")")]) {{ decoder in
      try Int(decoder: &decoder)
    }}
  }}

  /// The number of rows, fetched.
  public func fetchCount(_ db: Database) throws -> Int {{ try count().fetchOne(db) ?? 0 }}

  func selecting<NewOutput>(_ columns: [QueryFragment], decode: @escaping (inout SQLiteQueryDecoder) throws -> NewOutput) -> Select{k}<{params}, NewOutput> {{
    var clauses = clauses
    clauses.columns = columns.joined(separator: ", ")
    return Select{k}<{params}, NewOutput>(clauses: clauses, sources: sources, decode: decode)
  }}

{selects}}}
"""


KINDS = [
    ("join", "inner", "Joins `other`: only rows with a match on both sides (`JOIN ... ON`)."),
    ("leftJoin", "left", "Left-joins `other`: every row of this side; `other`'s side is NULL where nothing matches, so its columns are optional."),
    ("rightJoin", "right", "Right-joins `other`: every row of `other`; the tables joined so far are NULL where nothing matches, so their columns are optional."),
    ("fullJoin", "full", "Full-joins `other`: every row of both sides; either may be NULL, so every column is optional."),
]


def joins(receiver_types, receiver_values, receiver_output, static_receiver=False):
    """The four join methods from a receiver with `receiver_types` sources."""
    k = len(receiver_types) + 1
    out = []
    for name, kind, doc in KINDS:
        left_types = [f"NullableColumns<{t}>" for t in receiver_types] if kind in ("right", "full") else list(receiver_types)
        left_values = [f"NullableColumns({v})" for v in receiver_values] if kind in ("right", "full") else list(receiver_values)
        right_type = "NullableColumns<J.TableColumns>" if kind in ("left", "full") else "J.TableColumns"
        right_value = "NullableColumns(operand.columns)" if kind in ("left", "full") else "operand.columns"
        types = left_types + [right_type]
        values = left_values + [right_value]
        params = ", ".join(types)
        # The ON condition matches a row of `other` against the rows so far:
        # there both sides are as they were before this join, not optional
        # (upstream: `$0.id.eq($1.listID) && !$1.isCompleted` in a leftJoin).
        condition_closure = "(" + ", ".join(list(receiver_types) + ["J.TableColumns"]) + ")"
        condition_values = ", ".join(list(receiver_values) + ["operand.columns"])
        fragments = "[" + ", ".join(f"sources.{i}.queryFragment" for i in range(k)) + "]"
        where = f" where {receiver_output}" if receiver_output else ""
        out.append(f"""  /// {doc}
  public func {name}<J: Table>(
    _ other: Select<J, J>, on condition: {condition_closure} -> some QueryExpression<Bool>
  ) -> Select{k}<{params}, {output_of(types)}>{where} {{
    let operand = JoinOperand(other)
    let sources = ({", ".join(values)})
    var clauses = clauses
    clauses.joins.append(JoinKind.{kind}.clause(operand, on: condition({condition_values}).queryFragment))
    clauses.columns = {fragments}.joined(separator: ", ")
    return Select{k}(clauses: clauses, sources: sources) {{ decoder in {decode_of(types)} }}
  }}
""")
    return "\n".join(out)


def table_joins():
    out = []
    for name, kind, doc in KINDS:
        left = "NullableColumns<TableColumns>" if kind in ("right", "full") else "TableColumns"
        right = "NullableColumns<J.TableColumns>" if kind in ("left", "full") else "J.TableColumns"
        out.append(f"""  /// {doc}
  public static func {name}<J: Table>(
    _ other: Select<J, J>, on condition: (TableColumns, J.TableColumns) -> some QueryExpression<Bool>
  ) -> Select2<{left}, {right}, {output_of([left, right])}> {{
    all.{name}(other, on: condition)
  }}
""")
    return "\n".join(out)


def find_by_key(k):
    """`find` on a join narrows by the first table's primary key, as on one table."""
    ignored = ", ".join(["_"] * (k - 1))
    return f"""extension Select{k} where C0: PrimaryKeyedTableDefinition {{
  /// Narrows to the rows whose first table has primary key `key` (`id IN (?)`).
  public func find(_ key: C0.PrimaryKey) -> Self {{
    find([key])
  }}

  /// Narrows to the rows whose first table has one of these primary keys.
  public func find(_ keys: some Sequence<C0.PrimaryKey>) -> Self {{
    self.where {{ first, {ignored} in first.hasPrimaryKey(in: keys) }}
  }}
}}
"""


def sectioned(k):
    cs = [f"C{i}" for i in range(k)]
    sources = ", ".join(f"sources.{i}" for i in range(k))
    return f"""extension Select{k} {{
  /// This select in sections by what `sectioning` gives for its tables'
  /// columns; nil when it gives none (`FetchAll(…, sectionBy:)`).
  package func sectioned(by sectioning: ({", ".join(cs)}) -> Sectioning?) -> SectionedSelect<Output>? {{
    sectioning({sources}).map(sectionedSelect(by:))
  }}
}}
"""


def main():
    parts = ["// Generated by Scripts/generate-joined-selects.py; edit the script, not this file.\n\nimport GRDB\n"]
    for k in range(2, MAX_SOURCES + 1):
        parts.append(joined_struct(k))
        parts.append(f"extension Select{k}: SelectClausesProvider, _ClauseSelect {{}}\n")
        parts.append(find_by_key(k))
        parts.append(sectioned(k))
    parts.append("extension Select {\n" + joins(["From.TableColumns"], ["fromColumns"], "Output == From") + "}\n")
    parts.append("extension Table {\n" + table_joins() + "}\n")
    for k in range(2, MAX_SOURCES):
        cs = [f"C{i}" for i in range(k)]
        parts.append(f"extension Select{k} {{\n" + joins(cs, [f"self.sources.{i}" for i in range(k)], f"Output == {output_of(cs)}") + "}\n")
    path = os.path.join("Sources", "ChronicleQuery", "Generated", "JoinedSelects.swift")
    with open(path, "w") as f:
        f.write("\n".join(parts))


main()
