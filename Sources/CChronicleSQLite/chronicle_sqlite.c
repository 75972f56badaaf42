#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <stddef.h>
#include <sqlite3.h>
#include "chronicle_sqlite.h"

void chronicle_set_preupdate_hook(sqlite3 *db, chronicle_preupdate_callback callback, void *context) {
  sqlite3_preupdate_hook(db, (void (*)(void *, sqlite3 *, int, const char *, const char *,
                                       sqlite3_int64, sqlite3_int64))callback,
                         context);
}

int chronicle_preupdate_count(sqlite3 *db) { return sqlite3_preupdate_count(db); }

sqlite3_value *chronicle_preupdate_old(sqlite3 *db, int column) {
  sqlite3_value *value = 0;
  if (sqlite3_preupdate_old(db, column, &value) != SQLITE_OK) return 0;
  return value;
}

sqlite3_value *chronicle_preupdate_new(sqlite3 *db, int column) {
  sqlite3_value *value = 0;
  if (sqlite3_preupdate_new(db, column, &value) != SQLITE_OK) return 0;
  return value;
}

int chronicle_preupdate_depth(sqlite3 *db) { return sqlite3_preupdate_depth(db); }

int chronicle_preupdate_hook_available(void) {
  return sqlite3_compileoption_used("ENABLE_PREUPDATE_HOOK");
}

static void chronicle_guard_function(sqlite3_context *context, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  sqlite3_result_int(context, 1);
}

int chronicle_define_guard_function(sqlite3 *db, const char *name) {
  return sqlite3_create_function_v2(db, name, 0, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
                                    chronicle_guard_function, NULL, NULL, NULL);
}

int chronicle_set_triggers_enabled(sqlite3 *db, int enabled) {
  int now = 0;
  return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, enabled, &now);
}

int chronicle_triggers_enabled(sqlite3 *db) {
  int now = 0;
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, -1, &now);
  return now;
}
