/*
 * parser_snapshot.c - a parser's state as bytes and back (logtk_parser_save,
 * logtk_parser_load, logtk_parser_snapshot_algorithm), the content hash key
 * of a template (logtk_parser_template_key), and the order-independent merge
 * of shard states (logtk_parser_merge).  Split from parser.c, whose state it
 * reads through parser_state.h.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content_key.h"
#include "growarray.h"
#include "parser_state.h"
#include "saved_frame.h"
#include "template_match.h"

#define SNAPSHOT_MAGIC "LTKPSNAP"
#define SNAPSHOT_MAGIC_LEN 8
/* 2: a template may carry an alias and the text it shows (version 1 is still read);
   3: each mask is followed by its name (written only when a mask had one);
   4: the saved-file frame of core/saved_frame.h (u32 version, u64 length,
      32-bit checksum) around the version 3 body, every mask with its name.
   Versions 1 to 3 put a varint version after the magic and end with an
   8-byte ltk_hash_bytes(); they are still read. */
#define SNAPSHOT_VERSION 4
#define SNAPSHOT_VERSION_FRAMED 4 /* the first version in a saved frame */
#define SNAPSHOT_VERSION_OLDEST 1

/* ---------------------------------------------------------------- snapshots */

int logtk_parser_save(logtk_parser *p, void **buf, size_t *len)
{
    ltk_strbuf b = LTK_STRBUF_INIT;
    int ok = ltk_frame_begin(&b, SNAPSHOT_MAGIC, SNAPSHOT_VERSION) == 0 &&
             ltk_snap_put_bytes(&b, p->algo->name, strlen(p->algo->name)) == 0 &&
             ltk_strbuf_put_varint(&b, p->nparams) == 0;
    for (size_t i = 0; ok && i < p->nparams; i++)
        ok = ltk_snap_put_bytes(&b, p->params[i].name, strlen(p->params[i].name)) == 0 &&
             ltk_snap_put_bytes(&b, p->params[i].value, strlen(p->params[i].value)) == 0;
    size_t nmasks = ltk_masker_count(p->masker);
    ok = ok && ltk_strbuf_put_varint(&b, nmasks) == 0;
    for (size_t i = 0; ok && i < nmasks; i++) {
        const char *pat = ltk_masker_pattern(p->masker, i);
        const char *rep = ltk_masker_replacement(p->masker, i);
        const char *name = ltk_masker_name(p->masker, i);
        ok = ltk_snap_put_bytes(&b, pat, strlen(pat)) == 0 &&
             ltk_snap_put_bytes(&b, rep, strlen(rep)) == 0 &&
             ltk_snap_put_bytes(&b, name ? name : "", name ? strlen(name) : 0) == 0;
    }
    ok = ok && ltk_strbuf_put_varint(&b, p->lines) == 0 &&
         ltk_strbuf_put_varint(&b, p->ntemplates) == 0;
    for (uint32_t i = 0; ok && i < p->ntemplates; i++) {
        const template_entry *t = &p->templates[i];
        ok = ltk_strbuf_put_varint(&b, t->count) == 0 &&
             ltk_strbuf_put_varint(&b, t->ntokens) == 0;
        for (uint32_t k = 0; ok && k < t->ntokens; k++)
            ok = ltk_snap_put_bytes(&b, t->tokens[k].ptr, t->tokens[k].len) == 0;
        /* version 2: the alias, whether a line was seen, the shown text (length + 1; 0: none) */
        ok = ok && ltk_strbuf_put_varint(&b, t->alias) == 0 &&
             ltk_strbuf_put_varint(&b, (uint64_t)t->seen_line) == 0 &&
             ltk_strbuf_put_varint(&b, t->shown ? (uint64_t)t->shown_len + 1 : 0) == 0 &&
             (!t->shown || ltk_strbuf_append(&b, t->shown, t->shown_len) == 0);
    }
    int rc = LOGTK_OK;
    if (ok) {
        /* the algorithm's blob is written in place after room for its
           length (a varint of at most 10 bytes), then moved down to follow
           the length's real size: the same bytes as a blob built apart and
           copied, without holding it twice (10^5 fuse templates: 38 MB) */
        size_t head = b.len;
        static const char room[10] = {0};
        ok = ltk_strbuf_append(&b, room, sizeof room) == 0;
        if (ok && p->algo->save)
            rc = p->algo->save(p, p->state, &b);
        if (ok && rc == LOGTK_OK) {
            size_t blob_len = b.len - head - sizeof room, nv = 0;
            char v[10];
            uint64_t x = blob_len;
            do {
                uint8_t byte = x & 0x7f;
                x >>= 7;
                v[nv++] = (char)(x ? byte | 0x80 : byte);
            } while (x);
            memcpy(b.data + head, v, nv);
            memmove(b.data + head + nv, b.data + head + sizeof room, blob_len);
            b.len = head + nv + blob_len;
            b.data[b.len] = '\0';
        }
    }
    if (ok && rc == LOGTK_OK)
        ok = ltk_frame_end(&b, 0) == 0;
    if (!ok || rc != LOGTK_OK) {
        ltk_strbuf_free(&b);
        return rc != LOGTK_OK ? rc : ltk_parser_nomem(p);
    }
    *buf = b.data;
    *len = b.len;
    return LOGTK_OK;
}

/* Copies a snapshot string into a NUL-terminated scratch buffer. */
static const char *snap_cstr(ltk_strbuf *s, const char *ptr, size_t len)
{
    ltk_strbuf_clear(s);
    if (memchr(ptr, '\0', len) != NULL || ltk_strbuf_append(s, ptr, len) != 0)
        return NULL;
    return s->data ? s->data : "";
}

/* Loads the snapshot body [body, end) of format `version` (the algorithm
 * name first) into the fresh parser q. */
static int load_into(logtk_parser *q, uint32_t version, const uint8_t *body, const uint8_t *end,
                     ltk_errbuf *why)
{
    const uint8_t *pos = body;
    uint64_t n;
    const char *s;
    size_t slen;
    ltk_strbuf a = LTK_STRBUF_INIT, b = LTK_STRBUF_INIT, c = LTK_STRBUF_INIT;
    logtk_slice *toks = NULL;
    size_t toks_cap = 0;
    int rc = LOGTK_ERR_STATE;
#define BAD(msg)                                                        \
    do {                                                                \
        ltk_error_set(why, LOGTK_ERR_STATE, "parser snapshot: %s", msg); \
        goto done;                                                      \
    } while (0)
    if (ltk_snap_bytes(&pos, end, &s, &slen) != 0)
        BAD("truncated");
    if (ltk_varint_get(&pos, end, &n) != 0)
        BAD("truncated");
    for (uint64_t i = 0; i < n; i++) {
        const char *vs;
        size_t vlen;
        if (ltk_snap_bytes(&pos, end, &s, &slen) != 0 ||
            ltk_snap_bytes(&pos, end, &vs, &vlen) != 0)
            BAD("truncated parameters");
        const char *name = snap_cstr(&a, s, slen), *value = snap_cstr(&b, vs, vlen);
        if (name == NULL || value == NULL)
            BAD("bad parameter");
        if (logtk_parser_set_option(q, name, value) != LOGTK_OK) {
            ltk_error_set(why, LOGTK_ERR_STATE, "parser snapshot: parameter %s: %s", name,
                            logtk_parser_errmsg(q));
            goto done;
        }
    }
    if (ltk_varint_get(&pos, end, &n) != 0)
        BAD("truncated masks");
    for (uint64_t i = 0; i < n; i++) {
        const char *rs;
        size_t rlen;
        if (ltk_snap_bytes(&pos, end, &s, &slen) != 0 ||
            ltk_snap_bytes(&pos, end, &rs, &rlen) != 0)
            BAD("truncated masks");
        const char *pat = snap_cstr(&a, s, slen), *rep = snap_cstr(&b, rs, rlen);
        if (pat == NULL || rep == NULL)
            BAD("bad mask");
        const char *name = NULL;
        if (version >= 3) {
            const char *ns;
            size_t nslen;
            if (ltk_snap_bytes(&pos, end, &ns, &nslen) != 0)
                BAD("truncated masks");
            if (nslen > 0 && (name = snap_cstr(&c, ns, nslen)) == NULL)
                BAD("bad mask name");
        }
        if (logtk_parser_add_named_mask(q, name, pat, rep) != LOGTK_OK) {
            ltk_error_set(why, LOGTK_ERR_STATE, "parser snapshot: mask: %s",
                            logtk_parser_errmsg(q));
            goto done;
        }
    }
    uint64_t lines;
    if (ltk_varint_get(&pos, end, &lines) != 0 || ltk_varint_get(&pos, end, &n) != 0)
        BAD("truncated templates");
    if (n > (uint64_t)(end - pos) || n >= UINT32_MAX - 1)
        BAD("bad template count");
    for (uint64_t i = 0; i < n; i++) {
        uint64_t count, ntok;
        if (ltk_varint_get(&pos, end, &count) != 0 || ltk_varint_get(&pos, end, &ntok) != 0)
            BAD("truncated templates");
        if (ntok > (uint64_t)(end - pos))
            BAD("bad token count");
        if (ltk_parser_grow_size((void **)&toks, &toks_cap, (size_t)ntok + 1, sizeof *toks)) {
            rc = ltk_error_set(why, LOGTK_ERR_NOMEM, "out of memory");
            goto done;
        }
        for (uint64_t k = 0; k < ntok; k++) {
            if (ltk_snap_bytes(&pos, end, &toks[k].ptr, &toks[k].len) != 0)
                BAD("truncated template");
        }
        uint32_t id = ltk_tmpl_create(q, toks, (size_t)ntok);
        if (id == 0) {
            rc = ltk_error_set(why, LOGTK_ERR_NOMEM, "out of memory");
            goto done;
        }
        q->templates[id - 1].count = count;
        if (version < 2)
            continue;
        uint64_t alias, seen, shown;
        if (ltk_varint_get(&pos, end, &alias) != 0 || ltk_varint_get(&pos, end, &seen) != 0 ||
            ltk_varint_get(&pos, end, &shown) != 0)
            BAD("truncated template");
        if (alias > n || alias == id || seen > 1 || shown > (uint64_t)(end - pos) + 1)
            BAD("bad template alias or shown text");
        q->templates[id - 1].alias = (uint32_t)alias;
        q->templates[id - 1].seen_line = (int)seen;
        if (shown == 0)
            continue;
        if (ltk_parser_set_shown(q, &q->templates[id - 1], (const char *)pos, (size_t)(shown - 1)) != LOGTK_OK) {
            rc = ltk_error_set(why, LOGTK_ERR_NOMEM, "out of memory");
            goto done;
        }
        pos += shown - 1;
    }
    /* an alias names an earlier or later template; no chain may loop */
    for (uint32_t i = 1; i <= q->ntemplates; i++) {
        uint32_t r = i;
        for (uint32_t steps = 0; r != 0 && steps <= q->ntemplates; steps++)
            r = q->templates[r - 1].alias;
        if (r != 0)
            BAD("template aliases loop");
    }
    if (ltk_snap_bytes(&pos, end, &s, &slen) != 0)
        BAD("truncated algorithm state");
    if (pos != end)
        BAD("trailing bytes");
    q->lines = lines;
    q->assign_base = lines;
    if (q->algo->load) {
        int lrc = q->algo->load(q, q->state, (const uint8_t *)s, slen);
        if (lrc != LOGTK_OK) {
            ltk_error_set(why, lrc == LOGTK_ERR_NOMEM ? lrc : LOGTK_ERR_STATE,
                            "parser snapshot: %s state: %s", q->algo->name,
                            logtk_parser_errmsg(q)[0] ? logtk_parser_errmsg(q) : "damaged");
            rc = why->code;
            goto done;
        }
    } else if (slen != 0) {
        BAD("unexpected algorithm state");
    }
    rc = LOGTK_OK;
#undef BAD
done:
    ltk_strbuf_free(&a);
    ltk_strbuf_free(&b);
    ltk_strbuf_free(&c);
    free(toks);
    return rc;
}

/*
 * Checks a snapshot's frame: magic, version, length and checksum (version 4
 * on: the saved frame of core/saved_frame.h; versions 1 to 3: a varint
 * version after the magic and an 8-byte hash at the end, told apart by the
 * byte after the magic, which is the version's low byte in both); gives the
 * version, the body [*body, *body_end) and the algorithm name it was saved
 * by, which opens the body.  Returns LOGTK_OK or LOGTK_ERR_STATE with the
 * reason in *why.
 */
static int check_snapshot_frame(const void *buf, size_t len, uint32_t *version,
                                const uint8_t **body, const uint8_t **body_end, const char **name,
                                size_t *nlen, ltk_errbuf *why)
{
    const uint8_t *d = buf;
    if (buf == NULL || len < SNAPSHOT_MAGIC_LEN + 8 || memcmp(d, SNAPSHOT_MAGIC, SNAPSHOT_MAGIC_LEN))
        return ltk_error_set(why, LOGTK_ERR_STATE, "not a logtk parser snapshot");
    const uint8_t *pos, *end;
    if (d[SNAPSHOT_MAGIC_LEN] >= SNAPSHOT_VERSION_FRAMED) {
        size_t n;
        int rc = ltk_frame_open(buf, len, SNAPSHOT_MAGIC, SNAPSHOT_VERSION, "parser snapshot",
                                  version, &pos, &n, why);
        if (rc != LOGTK_OK)
            return rc;
        end = pos + n;
    } else {
        end = d + len - 8;
        uint64_t sum = 0;
        for (int i = 0; i < 8; i++)
            sum |= (uint64_t)end[i] << (8 * i);
        if (sum != ltk_hash_bytes(d, len - 8))
            return ltk_error_set(why, LOGTK_ERR_STATE,
                                   "parser snapshot damaged (checksum mismatch)");
        pos = d + SNAPSHOT_MAGIC_LEN;
        uint64_t v;
        if (ltk_varint_get(&pos, end, &v) != 0)
            return ltk_error_set(why, LOGTK_ERR_STATE, "parser snapshot truncated");
        if (v < SNAPSHOT_VERSION_OLDEST || v >= SNAPSHOT_VERSION_FRAMED)
            return ltk_error_set(why, LOGTK_ERR_STATE,
                                   "parser snapshot version %llu; this logtk reads versions %d "
                                   "to %d",
                                   (unsigned long long)v, SNAPSHOT_VERSION_OLDEST,
                                   SNAPSHOT_VERSION);
        *version = (uint32_t)v;
    }
    *body = pos;
    *body_end = end;
    if (ltk_snap_bytes(&pos, end, name, nlen))
        return ltk_error_set(why, LOGTK_ERR_STATE, "parser snapshot truncated");
    return LOGTK_OK;
}

int logtk_parser_load(logtk_parser *p, const void *buf, size_t len)
{
    ltk_error_clear(&p->err);
    const uint8_t *body, *end;
    const char *name;
    size_t nlen;
    uint32_t version;
    if (check_snapshot_frame(buf, len, &version, &body, &end, &name, &nlen, &p->err) != LOGTK_OK)
        return p->err.code;
    if (nlen != strlen(p->algo->name) || memcmp(name, p->algo->name, nlen) != 0)
        return ltk_parser_error(p, LOGTK_ERR_STATE,
                                  "parser snapshot is for \"%.*s\", this parser is \"%s\"",
                                  (int)(nlen > 64 ? 64 : nlen), name, p->algo->name);
    logtk_parser *q;
    int rc = ltk_parser_create(&q, p->algo);
    if (rc != LOGTK_OK)
        return ltk_parser_error(p, rc, "out of memory");
    q->keep_assignments = p->keep_assignments;
    ltk_errbuf why;
    ltk_error_clear(&why);
    rc = load_into(q, version, body, end, &why);
    if (rc != LOGTK_OK) {
        logtk_parser_free(q);
        return ltk_error_copy(&p->err, &why);
    }
    /* swap the loaded state in; keep the caller's callback */
    logtk_parser old = *p;
    *p = *q;
    p->callback = old.callback;
    p->callback_user = old.callback_user;
    ltk_error_clear(&p->err);
    *q = old;
    logtk_parser_free(q);
    return LOGTK_OK;
}

int logtk_parser_snapshot_algorithm(const void *buf, size_t len, const char **name)
{
    ltk_errbuf why;
    const char *aname;
    size_t alen;
    const uint8_t *end;
    *name = NULL;
    const uint8_t *body;
    uint32_t version;
    if (check_snapshot_frame(buf, len, &version, &body, &end, &aname, &alen, &why) != LOGTK_OK)
        return LOGTK_ERR_STATE;
    const ltk_parser_algo *algo = ltk_parser_algo_by_name(aname, alen);
    if (algo == NULL)
        return LOGTK_ERR_NOT_FOUND;
    *name = algo->name;
    return LOGTK_OK;
}

/* ------------------------------------------------------ content hash keys */

/* The key is ltk_content_key() (core/content_key.h): FNV-1a 64 of the text. */
int logtk_parser_template_key(logtk_parser *p, uint32_t template_id, uint64_t *key)
{
    logtk_slice text;
    int rc = logtk_parser_template(p, template_id, &text, NULL);
    if (rc == LOGTK_OK && key)
        *key = ltk_content_key(text.ptr, text.len);
    return rc;
}

/* ------------------------------------------------------------------ merging */

/*
 * Merging shard states (see logtk_parser_merge() in logtk.h).
 *
 * Every snapshot is loaded into its own parser (so it gets the full
 * validation of logtk_parser_load()), and all must agree on the algorithm,
 * the parameters (as a set: the order they were set in does not matter) and
 * the masks (as a sequence: masks run in order).  The union of their
 * templates is keyed by content, (key, text), with line counts summed; two
 * ids of one shard with the same text (an online parser that merged them)
 * become one entry.  Sorting by (key, text) gives an order that depends only
 * on the set of texts, never on the order of the shards or of their ids.
 *
 * The fold: the texts, in that order, are fed as messages to a fresh parser
 * of the same algorithm, parameters and masks, then finished.  Templates the
 * algorithm would group land in one template (a "<*>" in a text is a
 * variable to every algorithm, so "user 7 logged in" from one shard and
 * "user <*> logged in" from another meet); each source text's line count
 * goes to the template it landed in.  The fold sees each text once, so
 * algorithm state that counts lines (for example how often a word was seen
 * in a position) restarts from the templates alone; the template store, its
 * counts and the total of lines fed are exact.
 *
 * The result is saved and loaded once more, so the handle returned is
 * exactly what logtk_parser_load() of the merged snapshot gives: parsing
 * continues from it with line index = total lines of the shards.
 */

typedef struct merge_item {
    uint64_t key;
    const char *text; /* rendered text, in the merge's text buffer */
    size_t offset;    /* of the text in that buffer */
    size_t len;
    uint64_t count;
    uint64_t places;  /* algo->merge_hint() of the shards' templates with this text, or-ed */
    uint32_t ntokens; /* the tokens merge_hint() counted */
} merge_item;

static int merge_item_cmp(const void *a, const void *b)
{
    const merge_item *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = n ? memcmp(x->text, y->text, n) : 0;
    if (c != 0)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

static int param_pair_cmp(const void *a, const void *b)
{
    return strcmp(((const param_pair *)a)->name, ((const param_pair *)b)->name);
}

/* A parser with an error set, for the caller to read; NULL when even that fails. */
static logtk_parser *error_parser(const ltk_parser_algo *algo, const ltk_errbuf *why)
{
    logtk_parser *p = NULL;
    if (ltk_parser_create(&p, algo ? algo : LTK_PARSER_DEFAULT_ALGO) != LOGTK_OK)
        return NULL;
    ltk_error_copy(&p->err, why);
    return p;
}

static const char *shard_name(const char *const *names, size_t i, char *buf, size_t cap)
{
    if (names && names[i])
        return names[i];
    snprintf(buf, cap, "snapshot %zu", i + 1);
    return buf;
}

/* Loads snapshot i into a new parser of its own algorithm. */
static int load_shard(logtk_parser **out, const void *buf, size_t len, const char *name,
                      ltk_errbuf *why)
{
    const char *aname;
    size_t alen;
    const uint8_t *end;
    *out = NULL;
    ltk_errbuf frame;
    ltk_error_clear(&frame);
    const uint8_t *body;
    uint32_t version;
    if (check_snapshot_frame(buf, len, &version, &body, &end, &aname, &alen, &frame) != LOGTK_OK)
        return ltk_error_set(why, LOGTK_ERR_STATE, "%s: %s", name, ltk_error_text(&frame));
    const ltk_parser_algo *algo = ltk_parser_algo_by_name(aname, alen);
    if (algo == NULL)
        return ltk_error_set(why, LOGTK_ERR_STATE,
                               "%s: parser snapshot of an unknown algorithm \"%.*s\"", name,
                               (int)(alen > 64 ? 64 : alen), aname);
    logtk_parser *p;
    if (ltk_parser_create(&p, algo) != LOGTK_OK)
        return ltk_error_set(why, LOGTK_ERR_NOMEM, "out of memory");
    if (logtk_parser_load(p, buf, len) != LOGTK_OK) {
        ltk_error_set(why, p->err.code, "%s: %s", name, logtk_parser_errmsg(p));
        logtk_parser_free(p);
        return why->code;
    }
    *out = p;
    return LOGTK_OK;
}

/* Sorted copy of p's parameters (pointers into p). */
static param_pair *sorted_params(const logtk_parser *p)
{
    param_pair *s = malloc((p->nparams ? p->nparams : 1) * sizeof *s);
    if (s == NULL)
        return NULL;
    if (p->nparams)
        memcpy(s, p->params, p->nparams * sizeof *s);
    qsort(s, p->nparams, sizeof *s, param_pair_cmp);
    return s;
}

/* LOGTK_OK when shard b was made with a's algorithm, parameters and masks. */
static int check_same_setup(const logtk_parser *a, const char *aname, const param_pair *asorted,
                            const logtk_parser *b, const char *bname, ltk_errbuf *why)
{
    if (a->algo != b->algo)
        return ltk_error_set(why, LOGTK_ERR_STATE,
                               "%s: state of parser \"%s\", but %s is of parser \"%s\"", bname,
                               b->algo->name, aname, a->algo->name);
    param_pair *bs = sorted_params(b);
    if (bs == NULL)
        return ltk_error_set(why, LOGTK_ERR_NOMEM, "out of memory");
    int rc = LOGTK_OK;
    size_t i = 0, j = 0;
    while (rc == LOGTK_OK && (i < a->nparams || j < b->nparams)) {
        int c = i == a->nparams ? 1 : j == b->nparams ? -1 : strcmp(asorted[i].name, bs[j].name);
        if (c < 0)
            rc = ltk_error_set(why, LOGTK_ERR_STATE,
                                 "%s: parameter %s=%s of %s is not set in this state", bname,
                                 asorted[i].name, asorted[i].value, aname);
        else if (c > 0)
            rc = ltk_error_set(why, LOGTK_ERR_STATE,
                                 "%s: parameter %s=%s is not set in %s", bname, bs[j].name,
                                 bs[j].value, aname);
        else if (strcmp(asorted[i].value, bs[j].value) != 0)
            rc = ltk_error_set(why, LOGTK_ERR_STATE, "%s: parameter %s=%s, but %s has %s=%s",
                                 bname, bs[j].name, bs[j].value, aname, asorted[i].name,
                                 asorted[i].value);
        i++, j++;
    }
    free(bs);
    if (rc != LOGTK_OK)
        return rc;
    size_t na = ltk_masker_count(a->masker), nb = ltk_masker_count(b->masker);
    for (size_t k = 0; k < na || k < nb; k++) {
        if (k >= na || k >= nb)
            return ltk_error_set(why, LOGTK_ERR_STATE, "%s: %zu masks, but %s has %zu", bname,
                                   nb, aname, na);
        const char *aname_k = ltk_masker_name(a->masker, k);
        const char *bname_k = ltk_masker_name(b->masker, k);
        if (strcmp(ltk_masker_pattern(a->masker, k), ltk_masker_pattern(b->masker, k)) ||
            strcmp(ltk_masker_replacement(a->masker, k),
                   ltk_masker_replacement(b->masker, k)) ||
            strcmp(aname_k ? aname_k : "", bname_k ? bname_k : ""))
            return ltk_error_set(why, LOGTK_ERR_STATE,
                                   "%s: mask %zu is \"%s\", but %s has \"%s\"", bname, k + 1,
                                   ltk_masker_pattern(b->masker, k), aname,
                                   ltk_masker_pattern(a->masker, k));
    }
    return LOGTK_OK;
}

/* A fresh parser of model's algorithm, parameters (set in name order, so
   that shards whose parameters were set in another order merge to the same
   state) and masks: what a merge feeds the templates to. */
static int configured_like(logtk_parser **out, const logtk_parser *model, ltk_errbuf *why)
{
    logtk_parser *f = NULL;
    param_pair *sorted = sorted_params(model);
    if (sorted == NULL)
        return ltk_error_set(why, LOGTK_ERR_NOMEM, "out of memory");
    int rc = ltk_parser_create(&f, model->algo);
    if (rc != LOGTK_OK) {
        free(sorted);
        return ltk_error_set(why, rc, "out of memory");
    }
    for (size_t i = 0; rc == LOGTK_OK && i < model->nparams; i++)
        rc = logtk_parser_set_option(f, sorted[i].name, sorted[i].value);
    free(sorted);
    for (size_t k = 0; rc == LOGTK_OK && k < ltk_masker_count(model->masker); k++)
        rc = logtk_parser_add_named_mask(f, ltk_masker_name(model->masker, k),
                                         ltk_masker_pattern(model->masker, k),
                                         ltk_masker_replacement(model->masker, k));
    if (rc != LOGTK_OK) {
        ltk_error_set(why, rc, "merging: %s", logtk_parser_errmsg(f));
        logtk_parser_free(f);
        return rc;
    }
    *out = f;
    return LOGTK_OK;
}

/* Folds the sorted, distinct items into f (from configured_like(), freed
   here): each parser is freed as soon as the next step has what it needs,
   so the fed parser, its snapshot and the loaded result are not all held
   at once. */
static int fold_templates(logtk_parser **out, logtk_parser *f, const merge_item *items,
                          size_t nitems, uint64_t total_lines, ltk_errbuf *why)
{
    logtk_parser *r = NULL;
    const ltk_parser_algo *algo = f->algo;
    void *snap = NULL;
    size_t snap_len = 0;
    int rc = LOGTK_OK;
    for (size_t i = 0; rc == LOGTK_OK && i < nitems; i++) {
        if (items[i].places != 0 && algo->merge_places)
            algo->merge_places(f, f->state, items[i].ntokens, items[i].places);
        rc = logtk_parser_feed(f, items[i].text, items[i].len, NULL);
        if (rc == LOGTK_ERR_LIMIT)
            rc = LOGTK_OK; /* parsed without that mask, as when parsing */
    }
    if (rc == LOGTK_OK)
        rc = logtk_parser_finish(f);
    if (rc != LOGTK_OK) {
        ltk_error_set(why, rc, "merging: %s", logtk_parser_errmsg(f));
        goto done;
    }
    /* counts follow the sources; then the merged parser has fed total_lines */
    for (uint32_t id = 1; id <= f->ntemplates; id++)
        f->templates[id - 1].count = 0;
    for (size_t i = 0; i < nitems; i++) {
        uint32_t id = 0;
        if (logtk_parser_assignment(f, i, &id) != LOGTK_OK || entry(f, id) == NULL) {
            rc = ltk_error_set(why, LOGTK_ERR_STATE,
                                 "merging: %s gave template \"%.*s\" no template",
                                 f->algo->name, (int)(items[i].len > 200 ? 200 : items[i].len),
                                 items[i].text);
            goto done;
        }
        f->templates[id - 1].count += items[i].count;
    }
    f->lines = total_lines;
    if ((rc = logtk_parser_save(f, &snap, &snap_len)) != LOGTK_OK) {
        ltk_error_set(why, rc, "merging: %s", logtk_parser_errmsg(f));
        goto done;
    }
    logtk_parser_free(f);
    f = NULL;
    if ((rc = ltk_parser_create(&r, algo)) != LOGTK_OK) {
        ltk_error_set(why, rc, "out of memory");
        goto done;
    }
    if ((rc = logtk_parser_load(r, snap, snap_len)) != LOGTK_OK) {
        ltk_error_set(why, rc, "merging: %s", logtk_parser_errmsg(r));
        logtk_parser_free(r);
        r = NULL;
        goto done;
    }
    *out = r;
done:
    free(snap);
    logtk_parser_free(f);
    return rc;
}

/*
 * Memory: one shard is loaded at a time; its templates' texts are copied
 * into one buffer and the shard is freed before the next is loaded, and the
 * parser the texts are fed to is freed once saved (see fold_templates), so
 * the peak is one loaded shard or the fold, not all shards and the fold.
 */
int logtk_parser_merge(logtk_parser **out, size_t n, const void *const *snapshots,
                       const size_t *lens, const char *const *names)
{
    ltk_errbuf why;
    ltk_error_clear(&why);
    logtk_parser *shard = NULL, *fold = NULL;
    const ltk_parser_algo *algo0 = NULL;
    param_pair *params0 = NULL;
    merge_item *items = NULL;
    size_t nitems = 0, items_cap = 0;
    ltk_strbuf texts = {NULL, 0, 0};
    uint64_t total_lines = 0;
    char name0[32], namei[32];
    int rc = LOGTK_OK;
    *out = NULL;
    if (n == 0 || snapshots == NULL || lens == NULL) {
        rc = ltk_error_set(&why, LOGTK_ERR_INVALID, "no parser snapshots to merge");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        const char *ni = shard_name(names, i, namei, sizeof namei);
        if ((rc = load_shard(&shard, snapshots[i], lens[i], ni, &why)) != LOGTK_OK)
            goto done;
        if (i == 0) {
            /* the parser the texts are fed to stands for shard 0's setup */
            algo0 = shard->algo;
            if ((rc = configured_like(&fold, shard, &why)) != LOGTK_OK)
                goto done;
            if ((params0 = sorted_params(fold)) == NULL) {
                rc = ltk_error_set(&why, LOGTK_ERR_NOMEM, "out of memory");
                goto done;
            }
        }
        if (i > 0 && (rc = check_same_setup(fold, shard_name(names, 0, name0, sizeof name0),
                                            params0, shard, ni, &why)) != LOGTK_OK) {
            goto done;
        }
        if (shard->lines > UINT64_MAX - total_lines) {
            rc = ltk_error_set(&why, LOGTK_ERR_STATE, "%s: line count overflows", ni);
            goto done;
        }
        total_lines += shard->lines;
        if (ltk_array_reserve((void **)&items, &items_cap, nitems + shard->ntemplates + 1,
                                sizeof *items)) {
            rc = ltk_error_set(&why, LOGTK_ERR_NOMEM, "out of memory");
            goto done;
        }
        for (uint32_t id = 1; id <= shard->ntemplates; id++) {
            template_entry *t = entry(shard, id);
            template_entry *shown = entry(shard, ltk_parser_shown_id(shard, id));
            if ((rc = ltk_parser_render(shard, shown)) != LOGTK_OK) {
                ltk_error_set(&why, rc, "out of memory");
                goto done;
            }
            merge_item *it = &items[nitems++];
            it->text = NULL; /* the buffer may still move: offsets until the end */
            it->offset = texts.len;
            it->len = shown->text_len;
            it->key = ltk_content_key(shown->text, shown->text_len);
            it->count = t->count;
            it->places = 0;
            it->ntokens = 0;
            if (shard->algo->merge_hint)
                it->places = shard->algo->merge_hint(shard, shard->state, id, &it->ntokens);
            if (ltk_strbuf_append(&texts, shown->text, shown->text_len) != 0) {
                rc = ltk_error_set(&why, LOGTK_ERR_NOMEM, "out of memory");
                goto done;
            }
        }
        logtk_parser_free(shard);
        shard = NULL;
    }
    for (size_t i = 0; i < nitems; i++)
        items[i].text = texts.data + items[i].offset;
    qsort(items, nitems, sizeof *items, merge_item_cmp);
    size_t distinct = 0;
    for (size_t i = 0; i < nitems; i++) {
        if (distinct > 0 && merge_item_cmp(&items[distinct - 1], &items[i]) == 0) {
            items[distinct - 1].count += items[i].count;
            items[distinct - 1].places |= items[i].places;
            if (items[i].places != 0) /* (one text: one tokenization) */
                items[distinct - 1].ntokens = items[i].ntokens;
        } else {
            items[distinct++] = items[i];
        }
    }
    free(params0); /* points into fold, which fold_templates frees */
    params0 = NULL;
    rc = fold_templates(out, fold, items, distinct, total_lines, &why);
    fold = NULL;
done:
    if (rc != LOGTK_OK)
        *out = error_parser(algo0 ? algo0 : shard ? shard->algo : NULL, &why);
    logtk_parser_free(shard);
    logtk_parser_free(fold);
    free(params0);
    free(items);
    ltk_strbuf_free(&texts);
    return rc;
}
