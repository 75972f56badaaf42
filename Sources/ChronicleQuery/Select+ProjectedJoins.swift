// Joins of selects that chose their columns, as upstream spells them:
// `Reminder.select(\.id).join(RemindersList.select(\.id)) { $0.remindersListID.eq($1.id) }`
// selects `"reminders"."id", "remindersLists"."id"`, each row `(Int, Int)`.

extension Select {
  /// Joins `other`, keeping the columns each side chose: a row is this
  /// select's value and `other`'s (`(Int, Int)` for two single columns; a
  /// tuple on either side stays a tuple of its own).
  public func join<J: Table, JoinedOutput>(
    _ other: Select<J, JoinedOutput>, on condition: (From.TableColumns, J.TableColumns) -> some QueryExpression<Bool>
  ) -> Select2<From.TableColumns, J.TableColumns, (Output, JoinedOutput)> {
    let operand = ProjectedJoinOperand(other)
    var clauses = clauses
    clauses.joins.append(JoinKind.inner.clause(operand.rows, on: condition(fromColumns, operand.rows.columns).queryFragment))
    clauses.columns = [clauses.columns, operand.columns].joined(separator: ", ")
    let (left, right) = (decode, other.decode)
    return Select2(clauses: clauses, sources: (fromColumns, operand.rows.columns)) { decoder in
      (try left(&decoder), try right(&decoder))
    }
  }
}

extension Table {
  /// Joins `other`, a select that chose its columns: a row is this table's
  /// row and `other`'s value.
  public static func join<J: Table, JoinedOutput>(
    _ other: Select<J, JoinedOutput>, on condition: (TableColumns, J.TableColumns) -> some QueryExpression<Bool>
  ) -> Select2<TableColumns, J.TableColumns, (Self, JoinedOutput)> {
    all.join(other, on: condition)
  }
}

/// The right side of a join whose select chose its columns: the table's rows
/// (the table itself with its filters, or a subquery of its whole rows when
/// it is ordered or limited) and the chosen columns, read from them.
private struct ProjectedJoinOperand<J: Table> {
  var rows: JoinOperand<J>
  var columns: QueryFragment

  init<Output>(_ select: Select<J, Output>) {
    var wholeRows = select.clauses
    wholeRows.columns = select.fromColumns.queryFragment
    rows = JoinOperand(Select<J, J>(clauses: wholeRows, fromColumns: select.fromColumns) { decoder in try J(decoder: &decoder) })
    if select.clauses.isDistinct || !select.clauses.grouping.isEmpty {
      // Its columns are computed over its groups, which the join does not
      // keep: the statement fails, naming the fix.
      columns = QueryFragment(sql: quotedIdentifier(
        "a grouped or distinct select of \(J.tableName) cannot be joined by its chosen columns: join its rows and select after the join"))
    } else {
      columns = select.clauses.columns
    }
  }
}
