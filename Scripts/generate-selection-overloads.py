#!/usr/bin/env python3
"""Writes Sources/ChronicleQuery/Generated/SelectionOverloads.swift: `select`
and `returning` for one to six expressions, and the columns/values and
columns/select forms of `insert` for one to six columns.

Swift's parameter packs would say this once, but Swift 6.3.1 crashes in
SILGen on a generic method that returns `Select<From, (repeat (each C).QueryValue.QueryOutput)>`
with a decoding closure, so each arity is spelled out. Run from the package root.
"""
import os

MAX_ARITY = 6
letters = "ABCDEF"


def signature(n):
    names = letters[:n]
    generics = ", ".join(f"{c}: QueryExpression" for c in names)
    constraints = ", ".join(f"{c}.QueryValue: QueryRepresentable" for c in names)
    closure_result = names[0] if n == 1 else "(" + ", ".join(names) + ")"
    output = f"{names[0]}.QueryValue.QueryOutput" if n == 1 else "(" + ", ".join(f"{c}.QueryValue.QueryOutput" for c in names) + ")"
    return names, generics, constraints, closure_result, output


def body(n, root, call):
    names = letters[:n]
    # RETURNING names the table, never its alias: SQLite 3.40 reads
    # `"rs"."id"` there as "no such column".
    source = "returningColumns" if call == "returning" else "columns"
    values = f"let values = columns({root}.{source})"
    # A select names the columns of `Columns(…)` (`AS "date"`); RETURNING
    # writes them as they are, as upstream does.
    fragment = (lambda v: f"{v}.queryFragment") if call == "returning" else (lambda v: f"selectedFragment({v})")
    if n == 1:
        fragments = f"[{fragment('values')}]"
        decode = f"try {names[0]}.QueryValue(decoder: &decoder).queryOutput"
    else:
        fragments = "[" + ", ".join(fragment(f"values.{i}") for i in range(n)) + "]"
        decode = "(" + ", ".join(f"try {c}.QueryValue(decoder: &decoder).queryOutput" for c in names) + ")"
    return f"""    {values}
    return {call}({fragments}) {{ decoder in {decode} }}"""


def overloads(kind, generic_owner, root, doc, method, call, static=False, extra_constraint=None):
    out = []
    for n in range(1, MAX_ARITY + 1):
        names, generics, constraints, closure_result, output = signature(n)
        what = "one expression" if n == 1 else f"{n} expressions, as a tuple"
        result_type = f"{kind}<{generic_owner}, {output}>"
        prefix = "static " if static else ""
        where = constraints if extra_constraint is None else f"{extra_constraint}, {constraints}"
        out.append(f"""  /// {doc} {what}.
  public {prefix}func {method}<{generics}>(
    _ columns: ({root}.TableColumns) -> {closure_result}
  ) -> {result_type} where {where} {{
{body(n, root, call)}
  }}
""")
    return "\n".join(out)


def appending_overloads():
    """`select` on a select that already chose its columns adds to them, as
    upstream does: `Reminder.select(\\.id).select(\\.title)` gives `(id, title)`.
    An output of `earlier` values (a tuple when more than one) gains `n`."""
    out = []
    for earlier in range(1, MAX_ARITY):
        for n in range(1, MAX_ARITY - earlier + 1):
            names, generics, constraints, closure_result, _ = signature(n)
            kept = [f"X{i}" for i in range(earlier)]
            kept_generics = "".join(f"{x}, " for x in kept) if earlier > 1 else ""
            match = f"Output == ({', '.join(kept)}), " if earlier > 1 else ""
            previous = ["previous"] if earlier == 1 else [f"previous.{i}" for i in range(earlier)]
            previous_types = ["Output"] if earlier == 1 else kept
            output = "(" + ", ".join(previous_types + [f"{c}.QueryValue.QueryOutput" for c in names]) + ")"
            if n == 1:
                fragments = "[selectedFragment(values)]"
                added = [f"try {names[0]}.QueryValue(decoder: &decoder).queryOutput"]
            else:
                fragments = "[" + ", ".join(f"selectedFragment(values.{i})" for i in range(n)) + "]"
                added = [f"try {c}.QueryValue(decoder: &decoder).queryOutput" for c in names]
            what = "one expression" if n == 1 else f"{n} expressions"
            had = "one column" if earlier == 1 else f"{earlier} columns"
            out.append(f"""  /// Adds {what} to the {had} this select already has.
  public func select<{kept_generics}{generics}>(
    _ columns: (From.TableColumns) -> {closure_result}
  ) -> Select<From, {output}> where {match}{constraints} {{
    let values = columns(From.columns)
    return appending({fragments}) {{ decoder, previous in ({", ".join(previous + added)}) }}
  }}
""")
    return "\n".join(out)


def insert_overloads():
    out = []
    for n in range(1, MAX_ARITY + 1):
        names = letters[:n]
        generics = ", ".join(f"{c}: QueryRepresentable" for c in names)
        column_types = ", ".join(f"TableColumn<Self, {c}>" for c in names)
        column_types = column_types if n == 1 else f"({column_types})"
        outputs = ", ".join(f"{c}.QueryOutput" for c in names)
        outputs = outputs if n == 1 else f"({outputs})"
        def member(i):
            return "columns" if n == 1 else f"columns.{i}"
        def value(i):
            return "row" if n == 1 else f"row.{i}"
        names_expr = " + ".join(f"{member(i)}.names" for i in range(n))
        stored = names[0] if n == 1 else "(" + ", ".join(names) + ")"
        out.append(f"""  /// Inserts values for {"one column" if n == 1 else f"{n} columns"}: `insert {{ {"$0.title" if n == 1 else "($0.title, $0.count)"} }} values: {{ {'"Milk"' if n == 1 else '("Milk", 2)'} }}`.
  public static func insert<{generics}>(
    or resolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> {column_types},
    @InsertRowsBuilder<{stored}> values: () -> [QueryFragment]
  ) -> Insert<Self, Void> {{
    let columns = columns(Self.columns)
    return Insert(resolution: resolution, columns: {names_expr}, expressionRows: values())
  }}

  /// Inserts the rows a query selects into {"one column" if n == 1 else f"{n} columns"}: a select of
  /// one table or of joined ones, a compound, or a `Values` (`select: {{ Values {{ "Milk" }} }}`).
  public static func insert<{generics}>(
    or resolution: ConflictResolution? = nil,
    _ columns: (TableColumns) -> {column_types},
    select selection: () -> some SelectStatement<{outputs}>
  ) -> Insert<Self, Void> {{
    let columns = columns(Self.columns)
    return Insert(resolution: resolution, columns: {names_expr}, selection: selection().query)
  }}
""")
        out.append(upsert_overloads(n, generics, column_types, stored, outputs))
    return "\n".join(out)


def upsert_overloads(n, generics, column_types, stored, outputs):
    """Upsert spellings of the column-list inserts: each builds the plain
    insert and adds its ON CONFLICT clause through Table.upserting."""
    what = "one column" if n == 1 else f"{n} columns"
    target_forms = [
        ("doUpdate updates: (inout Updates<Self>, TableColumns) -> Void = { _, _ in }", "updates"),
        ("doUpdate updates: (inout Updates<Self>) -> Void", "{ row, _ in updates(&row) }"),
    ]
    out = []
    for source, parameter, plain in [
        ("values", f"@InsertRowsBuilder<{stored}> values: () -> [QueryFragment]", "insert(columns, values: values)"),
        ("select", f"select selection: () -> some SelectStatement<{outputs}>", "insert(columns, select: selection)"),
    ]:
        source_generics = generics
        for update_parameter, update_call in target_forms:
            out.append(f"""  /// Inserts into {what}; on a conflict over `target`, updates the existing row (without `doUpdate`, skips it).
  public static func insert<{source_generics}, each Target: QueryExpression>(
    _ columns: (TableColumns) -> {column_types},
    {parameter},
    onConflict target: (TableColumns) -> (repeat each Target),
    @QueryFragmentBuilder<Bool> where conflictFilter: (TableColumns) -> [QueryFragment] = {{ _ in [] }},
    {update_parameter},
    @QueryFragmentBuilder<Bool> where updateFilter: (TableColumns) -> [QueryFragment] = {{ _ in [] }}
  ) -> Insert<Self, Void> {{
    let targets = conflictTargets(target)
    return upserting(
      {plain}, targets: targets, conflictFilter: conflictFilter(Self.columns),
      updates: {update_call}, updateFilter: updateFilter(Self.columns))
  }}
""")
        if source == "values":
            out.append(f"""  /// Inserts values into {what}; on any conflict, updates the existing row: `onConflictDoUpdate: {{ $0.count += 1 }}`.
  public static func insert<{generics}>(
    _ columns: (TableColumns) -> {column_types},
    {parameter},
    onConflictDoUpdate updates: (inout Updates<Self>) -> Void,
    @QueryFragmentBuilder<Bool> where updateFilter: (TableColumns) -> [QueryFragment] = {{ _ in [] }}
  ) -> Insert<Self, Void> {{
    upserting(
      {plain}, targets: [], conflictFilter: [],
      updates: {{ row, _ in updates(&row) }}, updateFilter: updateFilter(Self.columns))
  }}

  /// Inserts values into {what}; on any conflict, updates the existing row from the `excluded` one.
  public static func insert<{generics}>(
    _ columns: (TableColumns) -> {column_types},
    {parameter},
    onConflictDoUpdate updates: (inout Updates<Self>, TableColumns) -> Void,
    @QueryFragmentBuilder<Bool> where updateFilter: (TableColumns, TableColumns) -> [QueryFragment] = {{ _, _ in [] }}
  ) -> Insert<Self, Void> {{
    upserting(
      {plain}, targets: [], conflictFilter: [],
      updates: updates, updateFilter: updateFilter(Self.columns, excludedColumns))
  }}
""")
    return "\n".join(out)


def row_builder_overloads():
    out = []
    for n in range(2, MAX_ARITY + 1):
        names = letters[:n]
        generics = ", ".join(f"{c}: QueryRepresentable" for c in names)
        stored = names[0] if n == 1 else "(" + ", ".join(names) + ")"
        outputs = names[0] + ".QueryOutput" if n == 1 else "(" + ", ".join(f"{c}.QueryOutput" for c in names) + ")"
        expressions = f"some QueryExpression<{names[0]}>" if n == 1 else "(" + ", ".join(f"some QueryExpression<{c}>" for c in names) + ")"
        def value(i):
            return "row" if n == 1 else f"row.{i}"
        appends = "\n".join(f"    {c}.appendColumns(named: \"\", of: {value(i)}, to: &values)" for i, c in enumerate(names))
        fragments = ", ".join(f"{value(i)}.queryFragment" for i in range(n))
        out.append(f"""  /// A row of Swift values{" (one column)" if n == 1 else f" for {n} columns"}.
  public static func buildExpression<{generics}>(_ row: {outputs}) -> [QueryFragment] where Columns == {stored} {{
    var values: [(column: String, value: QueryBinding)] = []
{appends}
    return [boundRow(values)]
  }}

  /// Rows of Swift values{" (one column)" if n == 1 else f" for {n} columns"}.
  public static func buildExpression<{generics}>(_ rows: [{outputs}]) -> [QueryFragment] where Columns == {stored} {{
    rows.flatMap {{ buildExpression($0) }}
  }}

  /// A row of expressions{" (one column)" if n == 1 else f" for {n} columns"}: `#sql`, functions, values.
  @_disfavoredOverload
  public static func buildExpression<{generics}>(_ row: {expressions}) -> [QueryFragment] where Columns == {stored} {{
    [[{fragments}].joined(separator: ", ")]
  }}
""")
    return "\n".join(out)


header = """// Generated by Scripts/generate-selection-overloads.py; edit the script, not this file.

"""

sections = [
    ("extension Select {", overloads("Select", "From", "From", "Selects", "select", "selecting", extra_constraint="Output == From")),
    ("extension Select {", appending_overloads()),
    ("extension Select where From: PrimaryKeyedTable {", overloads("Select", "From", "From", "Selects, in place of the drafts,", "select", "selecting", extra_constraint="Output == From.Draft")),
    ("extension Table {", overloads("Select", "Self", "Self", "Selects, from every row,", "select", "all.selecting", static=True)),
    ("extension TableRowDraft where Base: PrimaryKeyedTable {", overloads("Select", "Base", "Base", "Selects, from every row of the drafts' table,", "select", "Base.all.selecting", static=True)),
    ("extension Table {", insert_overloads()),
    ("extension InsertRowsBuilder where Columns: QueryRepresentable {", """  /// A Swift value, one column's row.
  public static func buildExpression(_ row: Columns.QueryOutput) -> [QueryFragment] {
    var values: [(column: String, value: QueryBinding)] = []
    Columns.appendColumns(named: "", of: row, to: &values)
    return [boundRow(values)]
  }

  /// Swift values, one row each.
  public static func buildExpression(_ rows: [Columns.QueryOutput]) -> [QueryFragment] {
    rows.flatMap { buildExpression($0) }
  }

  /// An expression, one column's row: `#sql`, functions, values.
  @_disfavoredOverload
  public static func buildExpression(_ row: some QueryExpression<Columns>) -> [QueryFragment] {
    [row.queryFragment]
  }
"""),
    ("extension InsertRowsBuilder {", row_builder_overloads()),
    ("extension Insert {", overloads("Insert", "Into", "Into", "Returns, for each inserted row,", "returning", "returning")),
    ("extension Update {", overloads("Update", "Base", "Base", "Returns, for each updated row,", "returning", "returning")),
    ("extension Delete {", overloads("Delete", "Base", "Base", "Returns, for each deleted row,", "returning", "returning")),
]

text = header + "\n".join(f"{opening}\n{content}}}\n" for opening, content in sections)
os.makedirs("Sources/ChronicleQuery/Generated", exist_ok=True)
with open("Sources/ChronicleQuery/Generated/SelectionOverloads.swift", "w") as f:
    f.write(text)
