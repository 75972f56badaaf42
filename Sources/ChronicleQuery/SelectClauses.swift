/// The clauses of a SELECT, shared by selects over one table and over joins.
struct SelectClauses: Sendable {
  /// The result columns, one fragment per value a row decodes to (a whole
  /// table's is one fragment of all its columns), so that `map` can hand
  /// each to its closure.
  var resultColumns: [QueryFragment]
  /// The result columns as the statement writes them.
  var columns: QueryFragment {
    get { resultColumns.joined(separator: ", ") }
    set { resultColumns = [newValue] }
  }
  var isDistinct = false
  /// What FROM names: a table, an aliased table, a common table or a subquery.
  var from: QueryFragment
  var joins: [QueryFragment] = []
  var conditions: [QueryFragment] = []
  var grouping: [QueryFragment] = []
  var groupConditions: [QueryFragment] = []
  var ordering: [QueryFragment] = []
  var limit: QueryFragment?
  var offset: QueryFragment?

  var query: QueryFragment {
    var sql = QueryFragment(sql: isDistinct ? "SELECT DISTINCT " : "SELECT ")
    sql.append(columns)
    // A select of expressions alone (`Select(expression)`) reads no table.
    if !from.isEmpty { sql.append(QueryFragment(" FROM ") + from) }
    for join in joins { sql.append(QueryFragment(" ") + join) }
    if !conditions.isEmpty { sql.append(QueryFragment(" WHERE ") + conjunction(conditions)) }
    if !grouping.isEmpty { sql.append(QueryFragment(" GROUP BY ") + grouping.joined(separator: ", ")) }
    if !groupConditions.isEmpty { sql.append(QueryFragment(" HAVING ") + conjunction(groupConditions)) }
    if !ordering.isEmpty { sql.append(QueryFragment(" ORDER BY ") + ordering.joined(separator: ", ")) }
    if let limit {
      sql.append(QueryFragment(" LIMIT ") + limit)
      if let offset { sql.append(QueryFragment(" OFFSET ") + offset) }
    } else if let offset {
      sql.append(QueryFragment(" LIMIT -1 OFFSET ") + offset)
    }
    // Its aggregates are the subquery's own: as an expression of another
    // query (`(SELECT max(…) FROM …)`) it aggregates nothing there.
    sql.containsAggregate = false
    return sql
  }

  /// Whether the rows are the source rows as they are: no grouping,
  /// distinct, order or limit (a join can then use the source directly).
  /// `later` (a chained static select's clauses) with these before its
  /// own: conditions, grouping and order first, and this limit where it sets none.
  func preceding(_ later: SelectClauses) -> SelectClauses {
    var result = later
    result.conditions = conditions + later.conditions
    result.grouping = grouping + later.grouping
    result.groupConditions = groupConditions + later.groupConditions
    result.ordering = ordering + later.ordering
    result.isDistinct = later.isDistinct || isDistinct
    if later.limit == nil {
      result.limit = limit
      result.offset = offset
    }
    return result
  }

  var onlyFilters: Bool {
    !isDistinct && joins.isEmpty && grouping.isEmpty && groupConditions.isEmpty && ordering.isEmpty && limit == nil && offset == nil
  }

  /// `count(*)` of the rows these clauses give; a subquery when they are
  /// grouped, distinct or limited.
  var counting: SelectClauses {
    guard isDistinct || !grouping.isEmpty || limit != nil || offset != nil else {
      var result = self
      result.columns = QueryFragment("count(*)")
      result.ordering = []
      return result
    }
    return SelectClauses(resultColumns: [QueryFragment("count(*)")], from: parenthesized(query))
  }
}

/// How a source joins: `JOIN`, `LEFT JOIN`, `RIGHT JOIN` or `FULL JOIN`.
enum JoinKind: String, Sendable {
  case inner = "JOIN", left = "LEFT JOIN", right = "RIGHT JOIN", full = "FULL JOIN"

  /// `JOIN <source> ON <condition> [AND <the operand's own filters>]`.
  func clause<J: Table>(_ operand: JoinOperand<J>, on condition: QueryFragment) -> QueryFragment {
    QueryFragment(sql: rawValue + " ") + operand.source + QueryFragment(" ON ") + conjunction([condition] + operand.conditions)
  }
}

/// A table's rows as the right side of a join: the table itself (its filters
/// joining the ON condition), an alias, a common table, or a subquery.
struct JoinOperand<J: Table> {
  var source: QueryFragment
  var conditions: [QueryFragment]
  var columns: J.TableColumns

  init(_ select: Select<J, J>) {
    if select.clauses.onlyFilters {
      source = select.clauses.from
      conditions = select.clauses.conditions
      columns = select.fromColumns
    } else {
      let name = J.tableAlias ?? J.tableName
      source = parenthesized(select.query) + QueryFragment(sql: " AS \(quotedIdentifier(name))")
      conditions = []
      columns = J.TableColumns(qualifier: name)
    }
  }
}
