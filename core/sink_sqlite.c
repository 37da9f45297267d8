/*
 * sink_sqlite.c - the "sqlite" sink: parsed logs as an SQLite database.
 *
 * Schema (documented for users in logtk-parse(1)):
 *     lines(line_id INTEGER PRIMARY KEY, "<field>" TEXT ..., content TEXT,
 *           template_id INTEGER)
 *     templates(template_id INTEGER PRIMARY KEY, template TEXT, count INTEGER,
 *               key TEXT)
 *     parameters(line_id INTEGER, position INTEGER, value TEXT,
 *                PRIMARY KEY (line_id, position)) WITHOUT ROWID
 *     index lines_by_template ON lines(template_id)
 *     index parameters_by_value ON parameters(value)
 *     view structured: lines joined with their template text
 *
 * Speed: the whole load is one transaction with three prepared statements
 * bound per row, and the secondary indexes are built after the last row
 * (one sort instead of millions of B-tree inserts).  Durability comes from
 * the outfile layer, not from SQLite: the database is built in the temporary
 * file that outfile.c renames into place only on success, so the rollback
 * journal and fsyncs would buy nothing; journal_mode=OFF and synchronous=OFF
 * make the load several times faster.
 *
 * templates.key is the template's content key (content_key.h: FNV-1a 64 of
 * the text, 16 lowercase hex digits), hashed here from the text alone so it
 * equals logtk_parser_template_key() and the EventKey of `logtk parse
 * --templates`; databases of different shards can be joined on it.  TEXT
 * rather than INTEGER because SQLite integers are signed (half the keys would
 * print negative) and the hex form is what every other output shows.  It is
 * the last column, so queries written for the older three-column table (and
 * INSERTs naming their columns) keep working.
 *
 * Lossless bytes: SQLite stores TEXT as given but many functions assume
 * UTF-8, so a value that is not valid UTF-8 is bound as a BLOB with its exact
 * bytes.  Header fields of a line that did not match the format are NULL,
 * which tells "no match" apart from "matched an empty field".
 */
#include "config.h"
#include "sink_impl.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "content_key.h"

typedef struct sqlite_sink {
    sqlite3 *db;
    sqlite3_stmt *insert_line;
    sqlite3_stmt *insert_param;
    sqlite3_stmt *insert_template;
    int in_transaction;
} sqlite_sink;

static int db_error(logtk_sink *s, sqlite3 *db, const char *what)
{
    return ltk_error_set(&s->err, LOGTK_ERR_IO, "%s: sqlite: %s: %s", s->display_path, what,
                           db ? sqlite3_errmsg(db) : "cannot open");
}

static int exec_sql(logtk_sink *s, const char *sql)
{
    sqlite_sink *q = s->impl;
    char *msg = NULL;
    if (sqlite3_exec(q->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        ltk_error_set(&s->err, LOGTK_ERR_IO, "%s: sqlite: %s", s->display_path,
                        msg ? msg : sqlite3_errmsg(q->db));
        sqlite3_free(msg);
        return LOGTK_ERR_IO;
    }
    return LOGTK_OK;
}

/* Appends an SQL identifier in double quotes, doubling embedded quotes. */
static int append_identifier(ltk_strbuf *b, const char *name)
{
    if (ltk_strbuf_putc(b, '"') != 0)
        return -1;
    for (const char *p = name; *p; p++) {
        if (*p == '"' && ltk_strbuf_putc(b, '"') != 0)
            return -1;
        if (ltk_strbuf_putc(b, *p) != 0)
            return -1;
    }
    return ltk_strbuf_putc(b, '"');
}

/*
 * Column names for the header fields: the field names as written in the
 * format, except that a name clashing (SQL identifiers ignore case) with a
 * fixed column or an earlier field gets "_" appended until it is unique.
 */
static int column_names(logtk_sink *s, char ***out)
{
    char **cols = ltk_arena_alloc(&s->arena, (s->nfields ? s->nfields : 1) * sizeof *cols);
    if (cols == NULL)
        return -1;
    static const char *const fixed[] = {"line_id", "content", "template_id"};
    for (size_t i = 0; i < s->nfields; i++) {
        ltk_strbuf name = LTK_STRBUF_INIT;
        if (ltk_strbuf_puts(&name, s->field_names[i][0] ? s->field_names[i] : "field") != 0) {
            ltk_strbuf_free(&name);
            return -1;
        }
        for (;;) {
            int clash = 0;
            for (size_t k = 0; k < 3 && !clash; k++)
                clash = strcasecmp(name.data, fixed[k]) == 0;
            for (size_t k = 0; k < i && !clash; k++)
                clash = strcasecmp(name.data, cols[k]) == 0;
            if (!clash)
                break;
            if (ltk_strbuf_putc(&name, '_') != 0) {
                ltk_strbuf_free(&name);
                return -1;
            }
        }
        cols[i] = ltk_arena_strndup(&s->arena, name.data, name.len);
        ltk_strbuf_free(&name);
        if (cols[i] == NULL)
            return -1;
    }
    *out = cols;
    return 0;
}

static int prepare(logtk_sink *s, const char *sql, sqlite3_stmt **stmt)
{
    sqlite_sink *q = s->impl;
    if (sqlite3_prepare_v2(q->db, sql, -1, stmt, NULL) != SQLITE_OK)
        return db_error(s, q->db, "prepare");
    return LOGTK_OK;
}

static int sqlite_begin(logtk_sink *s)
{
    sqlite_sink *q = calloc(1, sizeof *q);
    if (q == NULL)
        return ltk_sink_nomem(s);
    s->impl = q;
    if (sqlite3_open_v2(s->out.tmp_path, &q->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        NULL) != SQLITE_OK)
        return db_error(s, q->db, "open");
    int rc = exec_sql(s, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                         "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536;");
    if (rc != LOGTK_OK)
        return rc;

    char **cols;
    if (column_names(s, &cols) != 0)
        return ltk_sink_nomem(s);
    ltk_strbuf *b = &s->scratch;
    ltk_strbuf_clear(b);
    int bad = ltk_strbuf_puts(b, "BEGIN;"
                                   "CREATE TABLE templates(template_id INTEGER PRIMARY KEY,"
                                   " template TEXT NOT NULL, count INTEGER NOT NULL,"
                                   " \"key\" TEXT NOT NULL);"
                                   "CREATE TABLE lines(line_id INTEGER PRIMARY KEY");
    for (size_t i = 0; i < s->nfields; i++) {
        bad |= ltk_strbuf_puts(b, ", ");
        bad |= append_identifier(b, cols[i]);
        bad |= ltk_strbuf_puts(b, " TEXT");
    }
    bad |= ltk_strbuf_puts(b, ", content TEXT, template_id INTEGER);"
                                "CREATE TABLE parameters(line_id INTEGER NOT NULL,"
                                " position INTEGER NOT NULL, value TEXT,"
                                " PRIMARY KEY (line_id, position)) WITHOUT ROWID;"
                                "CREATE VIEW structured AS SELECT lines.*, templates.template"
                                " FROM lines LEFT JOIN templates USING (template_id);");
    if (bad)
        return ltk_sink_nomem(s);
    rc = exec_sql(s, b->data);
    if (rc != LOGTK_OK)
        return rc;
    q->in_transaction = 1;

    ltk_strbuf_clear(b);
    bad = ltk_strbuf_puts(b, "INSERT INTO lines VALUES (?");
    for (size_t i = 0; i < s->nfields + 2; i++)
        bad |= ltk_strbuf_puts(b, ",?");
    bad |= ltk_strbuf_putc(b, ')');
    if (bad)
        return ltk_sink_nomem(s);
    if ((rc = prepare(s, b->data, &q->insert_line)) != LOGTK_OK ||
        (rc = prepare(s, "INSERT INTO parameters VALUES (?,?,?)", &q->insert_param)) !=
            LOGTK_OK ||
        (rc = prepare(s, "INSERT OR REPLACE INTO templates VALUES (?,?,?,?)",
                      &q->insert_template)) != LOGTK_OK)
        return rc;
    return LOGTK_OK;
}

/* Binds bytes as TEXT when they are UTF-8, as a BLOB otherwise. */
static int bind_bytes(sqlite3_stmt *st, int index, const char *p, size_t n)
{
    if (p == NULL) {
        p = "";
        n = 0;
    }
    if (ltk_utf8_valid(p, n))
        return sqlite3_bind_text64(st, index, p, n, SQLITE_STATIC, SQLITE_UTF8);
    return sqlite3_bind_blob64(st, index, p, n, SQLITE_STATIC);
}

static int step_and_reset(logtk_sink *s, sqlite3_stmt *st, const char *what)
{
    sqlite_sink *q = s->impl;
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return db_error(s, q->db, what);
    return LOGTK_OK;
}

static int sqlite_write_row(logtk_sink *s, const logtk_row *row)
{
    sqlite_sink *q = s->impl;
    sqlite3_stmt *st = q->insert_line;
    const logtk_record *rec = row->record;
    int col = 1, rc = SQLITE_OK;
    rc |= sqlite3_bind_int64(st, col++, (sqlite3_int64)row->line_id);
    for (size_t i = 0; i < s->nfields; i++, col++) {
        if (rec == NULL || !rec->matched || i >= rec->nfields)
            rc |= sqlite3_bind_null(st, col);
        else
            rc |= bind_bytes(st, col, rec->fields[i].ptr, rec->fields[i].len);
    }
    if (rec)
        rc |= bind_bytes(st, col++, rec->content.ptr, rec->content.len);
    else
        rc |= sqlite3_bind_null(st, col++);
    rc |= sqlite3_bind_int64(st, col++, (sqlite3_int64)row->template_id);
    if (rc != SQLITE_OK)
        return db_error(s, q->db, "bind");
    int status = step_and_reset(s, st, "insert line");
    if (status != LOGTK_OK)
        return status;

    sqlite3_stmt *ps = q->insert_param;
    for (size_t i = 0; i < row->nparams; i++) {
        rc = sqlite3_bind_int64(ps, 1, (sqlite3_int64)row->line_id);
        rc |= sqlite3_bind_int64(ps, 2, (sqlite3_int64)(i + 1));
        rc |= bind_bytes(ps, 3, row->params[i].ptr, row->params[i].len);
        if (rc != SQLITE_OK)
            return db_error(s, q->db, "bind");
        if ((status = step_and_reset(s, ps, "insert parameter")) != LOGTK_OK)
            return status;
    }
    return LOGTK_OK;
}

static int sqlite_write_template(logtk_sink *s, uint32_t template_id, logtk_slice text,
                                 uint64_t count)
{
    sqlite_sink *q = s->impl;
    sqlite3_stmt *st = q->insert_template;
    int rc = sqlite3_bind_int64(st, 1, (sqlite3_int64)template_id);
    rc |= bind_bytes(st, 2, text.ptr, text.len);
    rc |= sqlite3_bind_int64(st, 3, (sqlite3_int64)count);
    char key[LTK_CONTENT_KEY_HEX_LEN + 1];
    ltk_content_key_hex(ltk_content_key(text.ptr, text.len), key);
    rc |= sqlite3_bind_text(st, 4, key, LTK_CONTENT_KEY_HEX_LEN, SQLITE_TRANSIENT);
    if (rc != SQLITE_OK)
        return db_error(s, q->db, "bind");
    return step_and_reset(s, st, "insert template");
}

static void finalize_statements(sqlite_sink *q)
{
    sqlite3_finalize(q->insert_line);
    sqlite3_finalize(q->insert_param);
    sqlite3_finalize(q->insert_template);
    q->insert_line = q->insert_param = q->insert_template = NULL;
}

static int sqlite_finish(logtk_sink *s)
{
    sqlite_sink *q = s->impl;
    finalize_statements(q);
    int rc = exec_sql(s, "CREATE INDEX lines_by_template ON lines(template_id);"
                         "CREATE INDEX parameters_by_value ON parameters(value);"
                         "COMMIT;");
    if (rc != LOGTK_OK)
        return rc;
    q->in_transaction = 0;
    if (sqlite3_close(q->db) != SQLITE_OK)
        return db_error(s, q->db, "close");
    q->db = NULL;
    return LOGTK_OK;
}

static void sqlite_release(logtk_sink *s)
{
    sqlite_sink *q = s->impl;
    if (q == NULL)
        return;
    finalize_statements(q);
    if (q->db)
        sqlite3_close_v2(q->db); /* an open transaction is rolled back; the file is removed anyway */
    free(q);
    s->impl = NULL;
}

const ltk_sink_ops ltk_sink_sqlite_ops = {
    "sqlite", 1, sqlite_begin, sqlite_write_row, sqlite_write_template, sqlite_finish,
    sqlite_release,
};
