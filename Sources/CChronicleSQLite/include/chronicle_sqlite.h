// Narrow C bridge to the parts of SQLite that GRDB's module does not expose:
// the preupdate hook, which the system library provides
// (SQLITE_ENABLE_PREUPDATE_HOOK) but whose declarations sqlite3.h hides unless
// the client defines that macro.
#ifndef CHRONICLE_SQLITE_H
#define CHRONICLE_SQLITE_H

#include <stdint.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_value sqlite3_value;

/// Preupdate callback: context, connection, operation (SQLITE_INSERT,
/// SQLITE_UPDATE, SQLITE_DELETE), schema name, table name, old rowid, new rowid.
typedef void (*chronicle_preupdate_callback)(void *context, sqlite3 *db, int op,
                                             const char *schema, const char *table,
                                             int64_t oldRowID, int64_t newRowID);

/// Installs (or with a NULL callback, removes) the connection's preupdate hook.
void chronicle_set_preupdate_hook(sqlite3 *db, chronicle_preupdate_callback callback, void *context);

/// Number of columns of the row being changed.
int chronicle_preupdate_count(sqlite3 *db);

/// The value of column `column` before the change (UPDATE and DELETE only).
/// Returns NULL on error.
sqlite3_value *chronicle_preupdate_old(sqlite3 *db, int column);

/// The value of column `column` after the change (INSERT and UPDATE only).
/// Returns NULL on error.
sqlite3_value *chronicle_preupdate_new(sqlite3 *db, int column);

/// 0 for a change made by the statement itself, 1 for one made by a trigger
/// it fired, 2 by a trigger that trigger fired, and so on.
int chronicle_preupdate_depth(sqlite3 *db);

/// 1 when the library was built with the preupdate hook, 0 otherwise.
int chronicle_preupdate_hook_available(void);

/// Defines `name` on the connection as a deterministic function of no
/// arguments that returns 1, in C: the guard triggers of tracked tables call
/// it for every row Chronicle writes, so it must cost next to nothing.
/// Returns the SQLite result code.
int chronicle_define_guard_function(sqlite3 *db, const char *name);

/// Turns the connection's triggers on (1) or off (0), as
/// SQLITE_DBCONFIG_ENABLE_TRIGGER does (a variadic call Swift cannot make).
/// Returns SQLite's result code.
int chronicle_set_triggers_enabled(sqlite3 *db, int enabled);

/// 1 when the connection's triggers are on, 0 when off.
int chronicle_triggers_enabled(sqlite3 *db);

#endif
