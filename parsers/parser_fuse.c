/*
 * parser_fuse.c - "fuse", logtk's own online parser: Brain's insight run at
 * Drain's speed, with templates written the way Loghub-2.0's full-size
 * ground truth writes them.
 *
 * Per line: (1) whole-token and in-token masks, no regex, one pass over the
 * bytes (atoms holding a digit become "<*>"; the shapes that mean a value in
 * any system's logs are enum fuse_rule below); (2) an exact lookup of the
 * masked sequence's hash, the fast path of nearly every line; (3) on a miss,
 * bidirectional sibling groups and prefix pools decide online which
 * positions vary across lines of one message type, and templates whose text
 * becomes equal merge.  Snapshots save the table, groups, pools and merges;
 * the learning tables are bounded by `max_entries` (the templates are
 * not); templates are named by the hash of their text.  doc/fuse.md gives
 * the whole design and the reason for each rule; logtk-parse(1) says how
 * fuse decides, for users.
 */
#include "config.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_header.h"
#include "fuse_impl.h"
#include "fuse_snapshot.h"
#include "growarray.h"
#include "hashtab.h"

/* ------------------------------------------------------------------ hashing */

/*
 * Hash of a byte string, eight bytes per step (a multiply-xorshift round per
 * word, the length folded in; not finalized, since every use mixes it
 * again: salted() in a sequence hash, ltk_u64map as a key).  Every token
 * hash of the parser
 * goes through this one function, so a token hashed straight from the
 * masking buffer (hash_padded) and the same bytes hashed elsewhere (a
 * template token, a variable form) agree.
 */
#define FUSE_HASH_MUL 0xbf58476d1ce4e5b9ULL

FUSE_INLINE uint64_t hash_round(uint64_t h, uint64_t w)
{
    h = (h ^ w) * FUSE_HASH_MUL;
    return h ^ (h >> 31);
}

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(&w, s + i, 8); /* the same word as the loop below builds */
#else
        for (size_t k = 0; k < 8; k++)
            w |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
#endif
        h = hash_round(h, w);
    }
    if (i < n) {
        uint64_t w = 0;
        for (size_t k = 0; i + k < n; k++)
            w |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
        h = hash_round(h, w);
    }
    return h;
}

/*
 * hash_bytes() for bytes followed by at least 8 readable bytes (the masking
 * buffer keeps that slack): whole-word loads, the tail word masked, no
 * per-byte loop.  Little-endian only; elsewhere it is hash_bytes().
 */
static uint64_t hash_padded(const char *s, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    size_t i = 0;
    uint64_t w;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, s + i, 8);
        h = hash_round(h, w);
    }
    if (i < n) {
        memcpy(&w, s + i, 8);
        h = hash_round(h, w & (~0ULL >> (8 * (8 - (n - i)))));
    }
    return h;
#else
    return hash_bytes(s, n);
#endif
}

/*
 * ltk_is_wildcard() for a word of the masked line (readable 8 bytes past its
 * end): its first four bytes compared at once, no branch per byte.
 */
FUSE_INLINE int is_wild_word(const char *s, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t w;
    memcpy(&w, s, 4);
    return (n == LTK_WILDCARD_LEN) & ((w & 0xffffffu) == ('<' | '*' << 8 | (uint32_t)'>' << 16));
#else
    return ltk_is_wildcard(s, n);
#endif
}

/* Contribution of token hash h at position pos to the sequence hash. */
FUSE_INLINE uint64_t salted(uint64_t h, size_t pos)
{
    return ltk_mix64(h + 0x9e3779b97f4a7c15ULL * (pos + 1));
}

/* ---------------------------------------------------------------------- map */


/* ---------------------------------------------------------------- masking */

/*
 * Each masking rule below can be compiled out, to measure it leave-one-
 * dataset-out: build with -DFUSE_RULES_OFF=MASK (bits of enum fuse_rule; any
 * bit also turns the quick hash off, which only restates the rules) and
 * compare the benchmark rows (tests/fuse_ablation.sh prints the table).  A
 * normal build keeps every rule and the compiler drops the tests.
 */
enum fuse_rule {
    FUSE_RULE_VALUE_WORDS = 1,   /* "null", "root", "admin", "true", "false" are values */
    FUSE_RULE_CALENDAR = 2,      /* month and weekday names are values */
    FUSE_RULE_PATHS = 3,         /* a path is one value */
    FUSE_RULE_HOSTS = 4,         /* DNS host names are values */
    FUSE_RULE_INNER_DIGITS = 5,  /* "jk2_init": a name, not a value */
    FUSE_RULE_UNIT_NAMES = 6,    /* "eth0", "sda1": names */
    FUSE_RULE_NUMBERED = 7,      /* "core.12" -> "core.<*>", "jetty-6.1.26" -> "jetty-<*>" */
    FUSE_RULE_LEADER_DOTS = 8,   /* "instruction......0" -> "instruction......<*>" */
    FUSE_RULE_CODE_SYMBOLS = 9,  /* "do_page_fault+0x12f/0x446" keeps its name */
    FUSE_RULE_JOINED = 10,       /* values joined by ':', '/', '#', ',', '@' are one */
    FUSE_RULE_QUANTITY = 11,     /* "(1.19 KB)" is one value */
    FUSE_RULE_BOUND = 12,        /* "<1 sec" is one value */
    FUSE_RULE_ANNOTATION = 13,   /* "host:443 (IPv6)": a value with its annotation */
    FUSE_RULE_PARTICIPLES = 14,  /* a slot of participles is not promoted */
    FUSE_RULE_HEX_WORDS = 15,    /* "ffffffff", "deadbeef": hex values */
    FUSE_RULE_DOTTED_SLOTS = 16, /* a slot of two dotted names is a variable */
    FUSE_RULE_HEX_GROUPS = 17,   /* "00:11:43:ba:e4:0d", "fe80::1ff:fe23": one value */
    FUSE_RULE_BRACKETS = 18,     /* "[LNKA]" varies as "[<*>]", not "<*>" */
    FUSE_RULE_SCOPED_NAMES = 19, /* "IO80211Manager::setMode": names of code */
    FUSE_RULE_MACHINE_WORDS = 20, /* "feabbda5", "bcca0fce": hex words, not names */
    FUSE_RULE_HEX_DUMPS = 21,     /* "Code: 8b 50 0c ab ...": one list */
    FUSE_RULE_QUOTED_SLOTS = 22,  /* a slot of two quoted words is a variable */
    FUSE_RULE_SCOPED_SLOTS = 23,  /* a slot of "Class::method" names is not promoted */
    FUSE_RULE_KEY_NAMES = 24,     /* a slot before a lone "=" or ":" is not promoted */
    FUSE_RULE_URLS = 25,          /* "hdfs://host:9000/x" is one value, its scheme too */
    FUSE_RULE_CLOSERS = 26,       /* "vCores:-27>": a '>' opened in another token is the value's */
    FUSE_RULE_VERSIONS = 27,      /* "HTTP/1.1", "Mozilla/5.0": a name and its version, one value */
    FUSE_RULE_FIELD_WORDS = 28,   /* "user=guest" beside "user=<*>": a word in a masked value's slot */
    FUSE_RULE_KEY_VALUES = 29,    /* "tty=ssh", "logname=": the value of a key is a value */
    FUSE_RULE_TIMESTAMPS = 30,    /* "from 2017-05-16 05:00:00 to": a date and time, one value */
    FUSE_RULE_OBJECTS = 31,       /* "org.x.Event@5ab2a0": a Java object's identity, one value */
    FUSE_RULE_LIST_LENGTHS = 32,  /* "delete <*>" and "delete <*> <*>": a list of any length */
    FUSE_RULE_CODE_NAMES = 33,    /* "mod_jk2", "createBean2", "NAT64": names of code, not values */
    FUSE_RULE_KNOWN_SLOTS = 34,   /* a new line with words at two variables of a known template */
    FUSE_RULE_SOURCE_FILES = 35,  /* "dispatcher.cc:487", "oauth2_x.cc:9": a source file, a line */
    FUSE_RULE_BASE64 = 36,        /* "SHA256:v9+pgEBN/lktpFQ": bytes in base64, one value */
    FUSE_RULE_SOLE_WORDS = 37,    /* "<*>: exiting": a message's only word is not promoted */
    FUSE_RULE_SQL_LITERALS = 38,  /* "VALUES ('a b', 'c')": an SQL statement's literals are values */
    FUSE_RULE_TWINS = 39,         /* "(a.org): query: a.org": a value printed twice varies at both;
                                     so do two quoted values that vary together */
    FUSE_RULE_LIST_CELLS = 40,    /* "get a:<*> b:<*>" beside "get <*>": a list of masked values */
    FUSE_RULE_TEXT_TAILS = 41,    /* "subject=<*> weekly report": a value printed last holds blanks */
    FUSE_RULE_TRANSITIONS = 42,   /* "from NEW to UNASSIGNED": a state machine's states are values */
    FUSE_RULE_QUOTED_SPANS = 43,  /* 'job "backup nightly" done': a quoted phrase is one value */
    FUSE_RULE_CONTROL_ESCAPES = 44, /* "foo()#012NameError:": rsyslog's "#012" is text, not digits */
    FUSE_RULE_UNIT_SLOTS = 45,    /* "on en0" beside "on awdl0": a slot of two devices is a variable */
    FUSE_RULE_CALENDAR_DATES = 46, /* "at Tue Dec  8 11:22:33 EST 2026 by": a date in words, one value */
    FUSE_RULE_MAIL_ADDRESSES = 47, /* "<= bob@example.org": a mail address is one value */
    FUSE_RULE_USER_SLOTS = 48,    /* "for user alice" beside "bob": a user's slot is a variable at two */
    FUSE_RULE_NUMBERED_LISTS = 49, /* "dadmin2 dadmin3 dadmin4": numbered names in a row are values */
    FUSE_RULE_BOOLEANS = 50,      /* "Powered On" beside "Powered Off": a boolean's slot is a variable */
    FUSE_RULE_NUMBERED_SLOTS = 51, /* "QQ.<*>" beside "NeteaseMusic.<*>": a slot of numbered names */
    FUSE_RULE_NULL_WORDS = 52,    /* "NULL pointer", "is null or empty": null before a word is text */
    FUSE_RULE_ENUM_SLOTS = 53,    /* "EventType: CONTAINER_INIT" beside "..._LAUNCH": an enumeration */
    FUSE_RULE_SPACED_PATHS = 54,  /* "(/rrds/C Nodes/cn304/x.rrd)": a path with a blank, one value */
    FUSE_RULE_COLON_KEYS = 55,    /* "action:android.intent.X" varies as "action:<*>", not "<*>" */
    FUSE_RULE_CODE_KEYS = 56,     /* "file=mgr.cpp", "Function=int": a key's value that is code stays */
    FUSE_RULE_ANCHORS = 57        /* "<*> ReqURL c <*>": a lone letter or sign anchors no slot */
};
#ifndef FUSE_RULES_OFF
#define FUSE_RULES_OFF 0
#endif
#define FUSE_RULE_OFF(r) (((unsigned long long)FUSE_RULES_OFF >> (r)) & 1)


static int is_wild_at(const char *s, size_t i, size_t n)
{
    return i + 3 <= n && s[i] == '<' && s[i + 1] == '*' && s[i + 2] == '>';
}

/*
 * Absolute path with at least two slashes, or a relative one spelled
 * "./name" or "../name" (the shell's way of naming a file, never a word).
 */
static int is_path(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_PATHS))
        return 0;
    if ((n >= 3 && s[0] == '.' && s[1] == '/') || (n >= 4 && memcmp(s, "../", 3) == 0))
        return 1;
    if (n < 3 || s[0] != '/')
        return 0;
    size_t slashes = 0;
    for (size_t i = 0; i < n; i++)
        slashes += s[i] == '/';
    return slashes >= 2;
}

/*
 * English month and weekday names as whole tokens: parts of timestamps, which
 * are variables in every ground truth, yet carry no digit.  1 for a month,
 * 2 for a weekday (calendar_date_span reads which), 0 otherwise.
 */
int ltk_fuse_is_calendar_word(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_CALENDAR))
        return 0;
    static const char names[] = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec "
                                "Mon Tue Wed Thu Fri Sat Sun ";
    if (n != 3 || s[0] < 'A' || s[0] > 'Z' || s[1] < 'a' || s[1] > 'z')
        return 0;
    for (const char *q = names; *q; q += 4)
        if (memcmp(q, s, 3) == 0)
            return q < names + 12 * 4 ? 1 : 2; /* the twelve months first */
    return 0;
}

/*
 * A month name written inside a date between numbers and '/' ("05/Dec/2026",
 * the Common Log Format's "[05/Dec/2026:00:58:34 +0000]" of every web
 * server's and proxy's access log): s[from..to) is the name.  It is part of
 * the date's value like the numbers around it, so the date is one "<*>"
 * (merge_joined), as "05/12/2026" is; kept, it split a request line's
 * template by month.
 */
static int is_date_month(const char *s, size_t from, size_t to, size_t n)
{
    return from >= 2 && s[from - 1] == '/' && s[from - 2] >= '0' && s[from - 2] <= '9' &&
           to + 1 < n && s[to] == '/' && s[to + 1] >= '0' && s[to + 1] <= '9' &&
           ltk_fuse_is_calendar_word(s + from, to - from);
}

/*
 * Words that are values although they hold no digit: the booleans, null,
 * and the names of the superuser accounts (root, admin).  Code prints them
 * as the value of a field ("is true", "user=root", "config null"), never as
 * a word of the message.  The full-size ground truths mark them "<*>"
 * (HealthApp's "the dataPrivacy is <*>", Mac's "result = <*>"), and so do
 * the corrected and the Loghub-2.0 2k ones; only the original Loghub-2k
 * ground truth keeps the booleans, splitting Android's templates by them.
 */
/* Whether s[0..n) is one of the `count` words (in small letters), in any case. */
static int is_word_of(const char *s, size_t n, const char *const *words, size_t count)
{
    for (size_t w = 0; w < count; w++) {
        size_t i = 0;
        while (i < n && words[w][i] != '\0' && (s[i] | 0x20) == words[w][i])
            i++;
        if (i == n && words[w][i] == '\0')
            return 1;
    }
    return 0;
}

static int is_value_word(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_VALUE_WORDS))
        return 0;
    static const char *const words[] = {"null", "root", "admin", "true", "false"};
    if (n != 4 && n != 5)
        return 0;
    char first = (char)(s[0] | 0x20);
    if (first != 'n' && first != 'r' && first != 'a' && first != 't' && first != 'f')
        return 0; /* the common case: a first letter none of the words has */
    return is_word_of(s, n, words, sizeof words / sizeof words[0]);
}

/*
 * Nonzero when s[0..n) is a diagnostic's marks under the code it points at,
 * carets and tildes only, a caret among them ("^^^^^^^^", "~~~~~~^^^^^^":
 * Python's tracebacks since 3.11, GCC's and Clang's "^~~~~"): their length
 * is the length of the code above, so a value, as that code is (one
 * template for every traceback's marks, not one per length).  Under rule
 * value-words.
 */
static int is_caret_marks(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_VALUE_WORDS))
        return 0;
    int caret = 0;
    for (size_t k = 0; k < n; k++) {
        if (s[k] != '^' && s[k] != '~')
            return 0;
        caret |= s[k] == '^';
    }
    return caret;
}

/*
 * The word is one of the two words a program prints for a flag's state
 * ("yes" and "no", "on" and "off"), in any case (rule booleans): bit 2k of
 * the pair k for its first word, 2k + 1 for its second; FUSE_NOT_BOOLEAN for
 * any other word.  "true" and "false" never come here: they are values by
 * their look (is_value_word).  Read byte by byte: a new word of a slot
 * asks (group_takes_word).
 */
#define FUSE_NOT_BOOLEAN 0x80u
static unsigned boolean_word(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_BOOLEANS) || n < 2 || n > 3)
        return FUSE_NOT_BOOLEAN;
    const char a = (char)(s[0] | 0x20), b = (char)(s[1] | 0x20);
    if (n == 2)
        return a == 'n' && b == 'o' ? 0x02u : a == 'o' && b == 'n' ? 0x04u : FUSE_NOT_BOOLEAN;
    const char c = (char)(s[2] | 0x20);
    return a == 'y' && b == 'e' && c == 's'   ? 0x01u
           : a == 'o' && b == 'f' && c == 'f' ? 0x08u
                                              : FUSE_NOT_BOOLEAN;
}

/*
 * A machine word printed in hex whose digits all happen to be letters
 * ("ffffffff", "DEADBEEF"): eight or more of a-f (or A-F), one case.  Hex
 * is printed at the width of the word it shows (8, 16, 32 digits), and no
 * message word of that length is spelled with a-f alone; shorter runs
 * ("added", "face", "decade") are words.
 */
static int is_hex_word(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_HEX_WORDS) || n < 8)
        return 0;
    unsigned char base = (unsigned char)(s[0] & 0x20) ? 'a' : 'A';
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)(s[i] - base) > 5)
            return 0;
    return 1;
}

/* Nonzero when s[0..n) is hex digits only, its letters of one case ("8b", "C0121BD3"). */
static int is_one_case_hex(const char *s, size_t n)
{
    int lower = 0, upper = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'a' && c <= 'f')
            lower = 1;
        else if (c >= 'A' && c <= 'F')
            upper = 1;
        else if (c < '0' || c > '9')
            return 0;
    }
    return !(lower && upper);
}

FUSE_INLINE int is_hex_byte(char c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/*
 * A cell of a hex dump: two or four hex digits, the letters of one case
 * ("8b", "00", "ab", "ffd3"), or one such cell marked in angle brackets or
 * parentheses ("<83>": a kernel's dump marks the faulting byte so); returns
 * its width, else 0.  A dump prints its bytes (or 16-bit words) at one
 * width in a row, the digits' cells masked as values, and the cells spelled
 * with a-f alone ("ab", "cf") are bytes like the others: a run of them
 * closing the line is one list (feed_tokens).
 */
static size_t hex_cell(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_HEX_DUMPS))
        return 0;
    if ((n == 4 || n == 6) && ((s[0] == '<' && s[n - 1] == '>') || (s[0] == '(' && s[n - 1] == ')'))) {
        s++;
        n -= 2;
    }
    return (n == 2 || n == 4) && is_one_case_hex(s, n) ? n : 0;
}

/*
 * Where a hex dump closing a line of n tokens starts (its first cell), else
 * 0: at least FUSE_LIST_MIN cells of one width (hex_cell) close the line,
 * some of them words ("ab"; cells that are all values, "<*>" with the hash
 * `wild_h`, are a list already).  No sentence has five words of a-f alone,
 * of one width, in a row ("fa fa fa fa fa": a shadow-memory row of ASan).
 * *lead is where the list the dump closes starts: the whole-token variables
 * right before it belong to it, as to a trailing list of values; it is past
 * position 0 (a line of values only stays as it is).  `hash` holds the
 * tokens' masked hashes (no tokens were joined).  With `text`, a text
 * column follows the n tokens (dump_text_from): two cells or more of any
 * spelling are a dump then, the column being the dump's mark.  *width_out:
 * the cells' width, once a cell closes the n tokens.
 */
static size_t hex_dump_from(const logtk_slice *tok, size_t n, const uint64_t *hash,
                            uint64_t wild_h, int text, size_t *lead, size_t *width_out)
{
    size_t width = n ? hex_cell(tok[n - 1].ptr, tok[n - 1].len) : 0;
    if (width == 0)
        return 0;
    size_t k = n;
    int words = 0;
    /* a dump of 16-bit words of an odd length closes with its last byte
       alone ("... 0641 0400 00FD ED02 0206 00", exabgp's payloads) */
    if (!text && width == 2 && n >= 2 && hex_cell(tok[n - 2].ptr, tok[n - 2].len) == 4) {
        width = 4;
        k--;
        words |= hash[k] != wild_h;
    }
    while (k > 0 && hex_cell(tok[k - 1].ptr, tok[k - 1].len) == width) {
        k--;
        words |= hash[k] != wild_h;
    }
    *width_out = width;
    if (text ? n - k < 2 : n - k < FUSE_LIST_MIN || !words)
        return 0;
    size_t from = k;
    while (k > 0 && hash[k - 1] == wild_h)
        k--;
    *lead = k;
    return k > 0 ? from : 0;
}

/*
 * Where the text column of a hex dump starts, when one closes the line of
 * n tokens: a dump as hexdump -C, xxd, OpenSSL and strongSwan print it
 * shows each row's bytes again as text, one character a byte and '.' for
 * a byte that does not print ("03 41 90 84 90 E7 25 5E  .A....%^").  Past
 * the last hex cell (hex_cell), at most 6 tokens (a byte 0x20 prints a
 * blank) spanning at most 40 bytes of the line (rows of 16 or 32 bytes),
 * one of them with a '.' (looked for first, in the last 40 bytes);
 * else n.  Whether the column has one character for each byte of the
 * cells before it is dump_text_fits()'s to say.
 */
static size_t dump_text_from(const logtk_slice *tok, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_HEX_DUMPS) || n < 3 ||
        (tok[n - 1].len - 2u <= 4u && hex_cell(tok[n - 1].ptr, tok[n - 1].len)))
        return n;
    const char *end = tok[n - 1].ptr + tok[n - 1].len;
    const char *from = end - tok[0].ptr > 40 ? end - 40 : tok[0].ptr;
    if (!memchr(from, '.', (size_t)(end - from)))
        return n; /* (no '.' near the end: most lines, at the cost of one scan) */
    for (size_t j = n - 1; j > 1 && n - j <= 6 && end - tok[j].ptr <= 40; j--) {
        const char *c = tok[j - 1].ptr;
        /* (most words: not 2 to 4 bytes long, or not opening with two hex digits) */
        if (tok[j - 1].len - 2u > 2u || (!(is_hex_byte(c[0]) && is_hex_byte(c[1])) &&
                                         c[0] != '<' && c[0] != '('))
            continue;
        if (!hex_cell(tok[j - 1].ptr, tok[j - 1].len))
            continue; /* (a short word of the column, or of a sentence) */
        /* two blanks or more part the column from the cells, as every such dump prints it */
        return tok[j].ptr - (tok[j - 1].ptr + tok[j - 1].len) >= 2 &&
                       memchr(tok[j].ptr, '.', (size_t)(end - tok[j].ptr))
                   ? j
                   : n;
    }
    return n;
}

/*
 * Whether tok[text..n) has one character for each byte of the cells
 * tok[from..text) of `width` digits: as many, or one or two fewer (a blank
 * byte 0x20 first or last in the row prints a blank the tokens lose); not
 * counting the bars hexdump -C prints around it ("|.ELF....|").
 */
static int dump_text_fits(const logtk_slice *tok, size_t from, size_t text, size_t n, size_t width)
{
    if (text == n)
        return 1;
    const size_t bytes = (text - from) * (width / 2);
    const char *first = tok[text].ptr, *end = tok[n - 1].ptr + tok[n - 1].len;
    size_t span = (size_t)(end - first);
    if (span >= 2 && first[0] == '|' && end[-1] == '|')
        span -= 2;
    return span <= bytes && span + 2 >= bytes;
}

/* Bytes that end a path component inside a token (whitespace already split tokens). */
static const unsigned char path_delimiters[256] = {
    [','] = 1, [';'] = 1, [':'] = 1, ['='] = 1, ['|'] = 1, ['"'] = 1, ['\''] = 1,
    ['['] = 1, [']'] = 1, ['('] = 1, [')'] = 1, ['{'] = 1, ['}'] = 1, ['`'] = 1,
};

FUSE_INLINE int is_path_delimiter(char c)
{
    return path_delimiters[(unsigned char)c];
}


/*
 * An identifier whose digits sit inside it ("jk2_init", "flush2DB",
 * "Slf4jLogger"): two or more letters, one or two digits, then at least
 * two more letters (an underscore may come first).  Such a name is a
 * function or class name spelled with a digit, a constant of the message,
 * whereas a value carries its digits at the end or in long runs
 * ("blk_42", "host129", "a41e8f").  The word still becomes a variable
 * through its sibling group when it varies.
 */
static int is_inner_digit_name(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_INNER_DIGITS))
        return 0;
    size_t i = 0, k;
    while (i < n && is_letter(s[i]))
        i++;
    if (i < 2)
        return 0;
    for (k = i; k < n && s[k] >= '0' && s[k] <= '9'; k++)
        ;
    if (k == i || k - i > 2)
        return 0;
    if (k < n && s[k] == '_')
        k++;
    size_t letters = 0;
    for (; k < n; k++) {
        if (is_letter(s[k]))
            letters++;
        else if (s[k] != '_')
            return 0;
    }
    return letters >= 2;
}

/*
 * A device or unit name: letters of one case and one final digit ("eth0",
 * "en0", "sda1", "tty2", "IPV6", and with one capital letter "L2", "C1": a
 * cache level, a power state; one small letter, "u1", "h2", is more often
 * an id), or a protocol with its version ("IPv6", "TLSv1", "CIPSOv4").
 * Systems number their interfaces, disks,
 * terminals and levels with one digit, and a message names the one it is
 * about the way it names a component; a value has more digits ("host129",
 * "tc19060").  The 2k ground truths keep such names as words (interfaces
 * in every network log, "CPU: L2 cache: <*>"); when the name does vary for
 * one event, its slot is a variable at the second name (is_slot_unit), as
 * the full ground truths write "Link Up on <*>" for "en0" and "awdl0".
 */
static int is_unit_name(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_UNIT_NAMES))
        return 0;
    if (n < 2 || s[n - 1] < '0' || s[n - 1] > '9' || (n == 2 && (s[0] < 'A' || s[0] > 'Z')))
        return 0; /* one letter: a capital ("L2"); "u1", "h2" are more often ids */
    char low = s[0] >= 'a' && s[0] <= 'z' ? 'a' : 'A', high = (char)(low + 25);
    if (low == 'a' && n > 7)
        return 0; /* a longer word in small letters numbered is an instance
                     ("nonexist3", "instance1"); capitals stay ("VERBOSE1") */
    size_t i = 0;
    while (i + 1 < n && s[i] >= low && s[i] <= high)
        i++;
    /* a protocol and its version: capitals, 'v', the digit ("IPv6", "TLSv1", "NFSv4") */
    return i + 1 == n || (low == 'A' && i >= 2 && i + 2 == n && s[i] == 'v');
}

/*
 * A machine word in hex that holds a digit: eight or more hex digits, the
 * letters of one case ("feabbda5", "bcca0fce", "C0121BD3").  Spelled so, an
 * address or a register would pass for a name under the two rules above
 * (letters and one final digit; letters, a digit, letters), one address in
 * a few of a kernel stack dump; a name of that length is not spelled with
 * a-f alone (see is_hex_word, the same words without a digit).
 */
static int is_machine_word(const char *s, size_t n)
{
    return !FUSE_RULE_OFF(FUSE_RULE_MACHINE_WORDS) && n >= 8 && is_one_case_hex(s, n);
}

/*
 * A name of code spelled with digits: letters, digits and '_' only, opening
 * with a letter, each run of digits one or two long, and written the way
 * programmers join words: with '_' between pieces that each hold a letter
 * ("mod_jk2", "nw_nat64_post_new_ifstate", "int32_t", "enable_2G"), in
 * camel case with the digits closing it ("createBean2",
 * "evaluateCrazyIvan46"), or as an acronym of capitals, one of them not a
 * hex digit, and two to four digits ("NAT64", "RFC2616").  Values spell
 * their digits otherwise: a piece of digits alone ("rdd_2_3",
 * "attempt_1445_0020"), long runs ("host129"), small letters and digits
 * ("an14", "node12": numbered instances, which vary).
 */
static int is_code_name(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_CODE_NAMES) || n < 4 || !is_letter(s[0]))
        return 0;
    size_t underscores = 0, run = 0, max_run = 0, runs = 0, humps = 0, lower = 0, upper = 0;
    size_t upper_not_hex = 0, piece_runs = 0;
    int piece_letter = 0;
    for (size_t i = 0; i < n; i++) {
        const char c = s[i];
        if (c >= '0' && c <= '9') {
            runs += run == 0;
            piece_runs += run == 0;
            run++;
            max_run = run > max_run ? run : max_run;
            continue;
        }
        run = 0;
        if (c == '_') {
            /* a piece without a letter ("rdd_2_3", "__"), or with digits in
               two places ("tmp_3f9a2b": an id in hex), is not a word */
            if (!piece_letter || piece_runs > 1)
                return 0;
            underscores++;
            piece_letter = 0;
            piece_runs = 0;
        } else if (c >= 'a' && c <= 'z') {
            piece_letter = 1;
            lower++;
        } else if (c >= 'A' && c <= 'Z') {
            piece_letter = 1;
            upper++;
            upper_not_hex += c > 'F';
            humps += i > 0 && s[i - 1] >= 'a' && s[i - 1] <= 'z';
        } else {
            return 0;
        }
    }
    if (runs == 0)
        return 0;
    if (underscores) {
        /* a letter and a number closing it label an instance: a board, a
           rack, a slot ("Thunderbird_D8", which the original ground truth
           writes "Thunderbird_<*>") */
        const size_t last = n - (size_t)(s[n - 1] >= '0' && s[n - 1] <= '9') -
                            (size_t)(n >= 2 && s[n - 2] >= '0' && s[n - 2] <= '9');
        if (last < n && last >= 2 && is_letter(s[last - 1]) && s[last - 2] == '_')
            return 0;
        return piece_letter && piece_runs <= 1 && max_run <= 2;
    }
    const int digits_close = s[n - 1] >= '0' && s[n - 1] <= '9' && runs == 1;
    if (humps && lower && digits_close && max_run <= 2)
        return 1; /* createBean2 */
    return lower == 0 && upper >= 2 && upper_not_hex && digits_close && max_run >= 2 &&
           max_run <= 4; /* NAT64, RFC2616 */
}

/*
 * A constant's name in capitals, pieces joined by '_', two or more of them
 * words of capitals alone: a message's identifier ("DHCP4_PACKET_DROP_0006",
 * Kea's; "SSH2_MSG_KEXINIT"), whatever its digits, which number the message
 * and do not vary across its lines.  Not one word and numbers ("SIGRT_32",
 * "MB_254_051007", numbered instances), nor anything in small letters.
 */
static int is_constant_name(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_CODE_NAMES) || n < 7 || s[0] < 'A' || s[0] > 'Z')
        return 0;
    size_t words = 0, letters = 0, digits = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '_') {
            if (letters + digits == 0)
                return 0; /* "__", or a '_' closing it */
            words += letters >= 2 && digits == 0;
            letters = digits = 0;
        } else if (s[i] >= 'A' && s[i] <= 'Z') {
            letters++;
        } else if (s[i] >= '0' && s[i] <= '9') {
            digits++;
        } else {
            return 0;
        }
    }
    return words >= 2;
}

/*
 * A Java name whose digits all number what the compiler made: an anonymous
 * class ("StartCommand$1.run", "Client$Connection$2") or a lambda's method
 * ("lambda$restore$0"), a '$' before each run of digits.  Code, as the
 * class and the method that carry them are: a stack frame with one stays
 * its own message ("at org.x.StartCommand$1.run(StartCommand.java:<*>)").
 */
static int is_java_synthetic_name(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_CODE_NAMES) || n < 3 || !is_letter(s[0]) || !memchr(s, '$', n))
        return 0; /* (the common case: no '$', found without reading the name byte by byte) */
    int numbered = 0;
    for (size_t i = 1; i < n; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            if (s[i - 1] == '$')
                numbered = 1;
            else if (s[i - 1] < '0' || s[i - 1] > '9')
                return 0; /* a digit after a letter: a value's, or another rule's */
        } else if (!is_letter(s[i]) && s[i] != '_' && s[i] != '.' && s[i] != '$') {
            return 0;
        }
    }
    return numbered;
}

/* A name that holds digits yet is a word of the message (see the rules above). */
static int is_digit_name(const char *s, size_t n)
{
    return (is_inner_digit_name(s, n) || is_unit_name(s, n) || is_code_name(s, n) ||
            is_constant_name(s, n) || is_java_synthetic_name(s, n)) &&
           !is_machine_word(s, n);
}

/* Nonzero when s[0..n) holds capitals, digits and '_' only. */
static int is_capitals_code(const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!((s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= '0' && s[k] <= '9') || s[k] == '_'))
            return 0;
    return n > 0;
}

/*
 * A message's identifier: the code some programs print before a message's
 * text to name it, one code a message, its digits the message's number and
 * not a value: Apache httpd's "AH01626:", Oracle's "ORA-00942:" and
 * "TNS-12535:", IBM's "CWWKZ0001I:" (a severity letter closing it),
 * MySQL's "[MY-010116]", Cisco's "%LINK-3-UPDOWN:" (facility, severity 0
 * to 7 and mnemonic).  The atom s[from..to) of token s[0..n) is the whole
 * token but its ':' (or its brackets): two to six capitals, a '-' or not,
 * three to six digits and a capital or not (in brackets, with the '-'); or
 * '%' and Cisco's three fields joined by '-'.  Where such a word does vary
 * within a message, its sibling group makes it a variable.
 */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int is_message_id(const char *s, size_t n, size_t from, size_t to)
{
    if (FUSE_RULE_OFF(FUSE_RULE_CODE_NAMES) || to + 1 != n || to - from < 5)
        return 0;
    const char *a = s + from;
    const size_t len = to - from;
    if (from == 0 && s[to] == ':' && a[0] == '%') {
        const char *sev = memchr(a, '-', len);
        return sev && sev - a >= 2 && (size_t)(sev - a) + 4 <= len && sev[1] >= '0' &&
               sev[1] <= '7' && sev[2] == '-' && is_capitals_code(a + 1, (size_t)(sev - a) - 1) &&
               is_capitals_code(sev + 3, len - (size_t)(sev + 3 - a));
    }
    const int bracketed = from == 1 && s[0] == '[' && s[to] == ']';
    if (!bracketed && !(from == 0 && s[to] == ':'))
        return 0;
    size_t k = 0;
    while (k < len && a[k] >= 'A' && a[k] <= 'Z')
        k++;
    if (k < 2 || k > 6)
        return 0;
    const int dash = k < len && a[k] == '-';
    if (bracketed && !dash)
        return 0;
    k += (size_t)dash;
    const size_t digits_from = k;
    while (k < len && a[k] >= '0' && a[k] <= '9')
        k++;
    if (k - digits_from < 3 || k - digits_from > 6)
        return 0;
    k += k < len && a[k] >= 'A' && a[k] <= 'Z';
    return k == len;
}

/*
 * A dotted name of code called with its arguments (a '(' follows it), the
 * pieces with digits names of code and the others words: Apache's
 * "env.createBean2(): Factory error ..." (180 lines of its full log, which
 * its full ground truth keeps).  Without the call a dotted name with digits
 * stays a value, a class or a file printed as data ("via
 * org.mortbay.log.Slf4jLog", "sys_ia32.c,v": the ground truths' "<*>"), and
 * a host's numbered piece is no name of code ("db3.prod").
 */
static int is_dotted_code_call(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_CODE_NAMES) || n < 3 || !memchr(s, '.', n))
        return 0;
    int digits = 0;
    for (size_t from = 0; from < n;) {
        const char *end = memchr(s + from, '.', n - from);
        const size_t to = end ? (size_t)(end - s) : n;
        if (to == from || !is_letter(s[from]))
            return 0; /* an empty piece, or one opening with a digit ("1.2") */
        int piece_digits = 0;
        for (size_t k = from; k < to; k++) {
            if (s[k] >= '0' && s[k] <= '9')
                piece_digits = 1;
            else if (!is_letter(s[k]) && s[k] != '_')
                return 0;
        }
        if (piece_digits && !((is_inner_digit_name(s + from, to - from) ||
                               is_code_name(s + from, to - from) ||
                               is_constant_name(s + from, to - from)) &&
                              !is_machine_word(s + from, to - from)))
            return 0;
        digits |= piece_digits;
        from = to + 1;
    }
    return digits && s[n - 1] != '.';
}

/*
 * A source file's name: a letter, letters, digits, '_' and '-', a dot and
 * a programming language's extension ("dispatcher.cc", "ib_sm_sweep.c").
 */
static int is_source_name(const char *s, size_t n)
{
    /* the extensions by length, one string of each length's, packed */
    static const char *const extensions[6] = {
        "", "chm", "cchhmmpygorsktjstsrbplcs", "cppcxxhpphxxphplua", "java", "scalaswift"};
    if (n < 3 || !is_letter(s[0]) || s[n - 1] < 'a' || s[n - 1] > 'z')
        return 0;
    size_t dot = n;
    while (dot > 0 && n - dot <= 5 && s[dot - 1] != '.')
        dot--;
    if (dot < 2 || s[dot - 1] != '.')
        return 0;
    for (size_t i = 1; i + 1 < dot; i++)
        if (!is_alnum_byte(s[i]) && s[i] != '_' && s[i] != '-')
            return 0;
    const size_t len = n - dot;
    if (len > 5)
        return 0; /* (the scan above stops one byte past five) */
    for (const char *e = extensions[len]; *e; e += len)
        if (memcmp(e, s + dot, len) == 0)
            return 1;
    return 0;
}

/*
 * A source file as a source location names it, s[0..n) followed by ':' and
 * a digit (the line; "<*>" in a template's text read as a line): a name (a
 * letter, then letters, digits, '_' and '-') and the extension of a
 * programming language's source ("dispatcher.cc:487",
 * "oauth2_token_service.cc:1086", "main.go:17", "views.py:42").  The file
 * names the code that printed the line, constant text like the function
 * names of code; only its line is a value (the ground truths keep Mac's
 * "DAVEngineImpl.cpp:<*>:Close" and "ib_sm_sweep.c:<*>").  So a name with
 * digits stays ("oauth2"), and one spelled like a host does not read as
 * host and port ("bus.cc:405": ".cc" is also a country's domain).
 */
static int is_source_file(const char *s, size_t n, const char *line, size_t at, size_t end)
{
    /* (the line, or "<*>" where a template's text is read as a line) */
    if (FUSE_RULE_OFF(FUSE_RULE_SOURCE_FILES) || at + 1 >= end || line[at] != ':' ||
        !((line[at + 1] >= '0' && line[at + 1] <= '9') || is_wild_at(line, at + 1, end)))
        return 0;
    return is_source_name(s, n);
}

/*
 * Where the directories end in a path s[from..end) that a ':' and a line
 * number follow ("/tmp/src/bug.c:5:45", a sanitizer's frame): before the
 * last '/' when the last piece is a source file's name, so the file stays
 * as it does without a path ("bug.c:<*>", is_source_file); else end.
 */
static size_t source_path_dir(const char *s, size_t from, size_t end)
{
    if (FUSE_RULE_OFF(FUSE_RULE_SOURCE_FILES))
        return end;
    size_t slash = end;
    while (slash > from && s[slash - 1] != '/')
        slash--;
    return slash > from + 1 && is_source_name(s + slash, end - slash) ? slash - 1 : end;
}

/* the longest source path is_source_dir() reads (it scans forward from each piece) */
#define FUSE_SOURCE_PATH_MAX 256

/*
 * s[from..to) is a directory of a source location written from the root of
 * the source tree, without "./" ("v3rpc/interceptor.go:181", the caller zap
 * prints; "crypto/x509/cert.go:77"): a name, then from s[to] on '/' and
 * names, the last a source file's, then ':' and the line.  The directories
 * name the package of the code that printed the line, constant as the file
 * is, so a digit in one ("v3rpc", "x509") does not make it a value.  (An
 * absolute path's directories are where the code was built: source_path_dir.)
 */
static int is_source_dir(const char *s, size_t from, size_t to, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_SOURCE_FILES) || to + 1 >= n || s[to] != '/' ||
        !is_letter(s[from]) || (from > 0 && (is_alnum_byte(s[from - 1]) || s[from - 1] == '.')))
        return 0;
    for (size_t i = from; i < to; i++)
        if (!is_alnum_byte(s[i]) && s[i] != '_' && s[i] != '-')
            return 0;
    /* a source path is short: the scan stops FUSE_SOURCE_PATH_MAX bytes on, so
       that a token of many "a1/" pieces costs each piece that much, not the
       rest of the token (every piece asks) */
    size_t piece = to + 1;
    const size_t stop = n - to > FUSE_SOURCE_PATH_MAX ? to + FUSE_SOURCE_PATH_MAX : n;
    for (size_t i = piece; i < stop; i++) {
        if (s[i] == ':') /* a line, or "<*>" where a template's text is read as a line */
            return i + 1 < n && ((s[i + 1] >= '0' && s[i + 1] <= '9') || is_wild_at(s, i + 1, n)) &&
                   is_source_name(s + piece, i - piece);
        if (s[i] == '/') {
            if (i == piece)
                return 0;
            piece = i + 1;
        } else if (!is_alnum_byte(s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.') {
            return 0;
        }
    }
    return 0;
}

/* The atom s[from..to) is a source location's file or one of its directories. */
static int names_source(const char *s, size_t from, size_t to, size_t n)
{
    return to < n && ((s[to] == ':' && is_source_file(s + from, to - from, s, to, n)) ||
                      (s[to] == '/' && is_source_dir(s, from, to, n)));
}

/*
 * Nonzero when the key's value s[from..to) (s[from - 1] its '=') is code,
 * constant text as the names of code are (rule code-keys): a source file's
 * name, whole ("Source file=idotransportmgr.cpp", BGL's assertions; every
 * ground truth keeps it), or the value of a key that names the function
 * ("Function=int IdoTransportMgr::SendPacket(...)", logfmt's "func=main.run"):
 * the code that printed the line, not data it reports.
 */
static int is_code_value(const char *s, size_t from, size_t to, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_CODE_KEYS) || from < 2 || s[from - 1] != '=')
        return 0;
    if ((to == n || s[to] == ',' || s[to] == ';' || s[to] == ')') &&
        is_source_name(s + from, to - from))
        return 1;
    size_t k = from - 1; /* the key: letters before the '=' */
    while (k > 0 && is_letter(s[k - 1]))
        k--;
    if (k > 0 && (is_alnum_byte(s[k - 1]) || s[k - 1] == '_' || s[k - 1] == '.' || s[k - 1] == '-'))
        return 0; /* (a longer key: "my_function=") */
    static const char *const names[] = {"function", "func"};
    return is_word_of(s + k, from - 1 - k, names, sizeof names / sizeof names[0]);
}

/*
 * The index of the last '/' of a relative path ("./x", "../x") whose file
 * is a source file and a ':' and a line follow ("../sysdeps/nptl/
 * libc_start_call_main.h:58", a sanitizer's frame in a library), else 0.
 */
static size_t relative_source_dir(const char *s, size_t n)
{
    const char *colon = memchr(s, ':', n);
    if (colon == NULL || colon + 1 == s + n || colon[1] < '0' || colon[1] > '9' ||
        !is_path(s, (size_t)(colon - s)))
        return 0;
    const size_t end = (size_t)(colon - s), dir = source_path_dir(s, 0, end);
    return dir < end ? dir : 0;
}

/*
 * The length of "file.ext." in an atom "file.ext.<line>", a source location
 * written with a dot before the line ("response.c.422", lighttpd's): the
 * file is kept, the line is the value, as "dispatcher.cc:<*>" is written
 * (is_source_file).  0 otherwise.
 */
FUSE_INLINE size_t source_line_prefix(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_SOURCE_FILES) || n < 5 || s[n - 1] < '0' || s[n - 1] > '9')
        return 0;
    size_t d = n;
    while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
        d--;
    return d >= 4 && n - d <= 6 && s[d - 1] == '.' && is_source_name(s, d - 1) ? d : 0;
}

/* Nonzero when s[0..n) is digits with one or more inner dots ("1.1", "5.0.2"). */
static int is_dotted_number(const char *s, size_t n)
{
    size_t dots = 0;
    if (n < 3 || s[0] < '0' || s[0] > '9' || s[n - 1] < '0' || s[n - 1] > '9')
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.') {
            if (s[i + 1] == '.')
                return 0;
            dots++;
        } else if (s[i] < '0' || s[i] > '9') {
            return 0;
        }
    }
    return dots > 0;
}

/*
 * The length of a kept name prefix of a variable atom: "core." of
 * "core.1234", "jetty-" of "jetty-6.1.26".  The atom starts with a word of
 * letters, then '.' and pieces that each hold a digit (a numbered instance
 * of a named thing: BGL's ground truths, every one, write "core.<*>"), or
 * '-' and a dotted version (a product and its release: the full-size
 * ground truth writes Hadoop's "jetty-<*>").  A name joined by '-' to
 * anything else is a value whole ("node-224", "Interconnect-1N01",
 * "BP-1347-10.0.0.1-1444", "UTF-8"): the full-size ground truths write HPC's
 * nodes and Hadoop's block pools and hosts "<*>", where the 2k ones kept
 * "node-<*>".  A name and "<*>" after '-' is a kept name read again (a
 * shard's template folded by `logtk merge`, or a mask's value), and keeps
 * it.  A host name ("adsl-70-242.dsl.example.net": a later piece is
 * letters only) or a dotted class name is a value as a whole: 0.
 */
static size_t name_prefix(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_NUMBERED))
        return 0;
    size_t i = 0;
    while (i < n && is_letter(s[i]))
        i++;
    if (i < 2 || i + 1 >= n || (s[i] != '-' && s[i] != '.'))
        return 0;
    size_t prefix = i + 1;
    if (s[i] == '-' && !is_dotted_number(s + prefix, n - prefix) &&
        !(n - prefix == LTK_WILDCARD_LEN && is_wild_at(s, prefix, n)))
        return 0; /* (a template's "jetty-<*>" read again keeps its name) */
    int digit = 0;
    for (size_t k = prefix; k <= n; k++) {
        if (k == n || s[k] == '-' || s[k] == '.') {
            if (!digit)
                return 0;
            digit = 0;
        } else if ((s[k] >= '0' && s[k] <= '9') || s[k] == '*') {
            digit = 1;
        }
    }
    return prefix;
}

/*
 * The length of a code symbol before its offset ("do_page_fault+" of
 * "do_page_fault+0x12f", the "/0x446" after it being the next atom): an
 * identifier (letters, digits, '_', '.', '$'; it opens with a letter or
 * '_'), '+', then a number or a mask's "<*>".  Stack traces and profilers
 * print a code address as symbol+offset: the symbol names the function,
 * the message's type, and only the offset and length vary.
 */
static size_t symbol_prefix(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_CODE_SYMBOLS))
        return 0;
    if (n < 3 || !(is_letter(s[0]) || s[0] == '_'))
        return 0;
    size_t i = 1;
    while (i < n && (is_alnum_byte(s[i]) || s[i] == '_' || s[i] == '.' || s[i] == '$'))
        i++;
    if (i + 1 >= n || s[i] != '+' || !((s[i + 1] >= '0' && s[i + 1] <= '9') || is_wild_at(s, i + 1, n)))
        return 0;
    return i + 1;
}

/*
 * The length of a label and its leader dots before a value
 * ("instruction......" of "instruction......0"): a word, then two or more
 * dots, then more.  Such a run of dots is how a report lines its values up
 * in a column, so it separates a constant label from the value after it,
 * as the ground truths write it ("illegal instruction......<*>"); a
 * single dot would join the pieces of a name or a number.
 */
static size_t leader_prefix(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_LEADER_DOTS))
        return 0;
    size_t i = 0;
    while (i < n && (is_letter(s[i]) || s[i] == '_' || s[i] == '-'))
        i++;
    /* no label in the piece: it is the word before ("field ......0") or
       ended at a bracket ("(1=usr)......0"); the dots still lead the value */
    if (i == 1 || i + 2 >= n || s[i] != '.' || s[i + 1] != '.')
        return 0;
    while (i < n && s[i] == '.')
        i++;
    return i < n ? i : 0;
}

/* Byte classes for the masking scan: an atom's own bytes, its digits, the breaks. */
enum { CLS_WORD = 0, CLS_DIGIT = 1, CLS_BREAK = 2 };

static const unsigned char byte_class[256] = {
    ['0'] = CLS_DIGIT, ['1'] = CLS_DIGIT, ['2'] = CLS_DIGIT, ['3'] = CLS_DIGIT,
    ['4'] = CLS_DIGIT, ['5'] = CLS_DIGIT, ['6'] = CLS_DIGIT, ['7'] = CLS_DIGIT,
    ['8'] = CLS_DIGIT, ['9'] = CLS_DIGIT,
    [':'] = CLS_BREAK, ['='] = CLS_BREAK, [','] = CLS_BREAK, [';'] = CLS_BREAK,
    ['('] = CLS_BREAK, [')'] = CLS_BREAK, ['['] = CLS_BREAK, [']'] = CLS_BREAK,
    ['{'] = CLS_BREAK, ['}'] = CLS_BREAK, ['"'] = CLS_BREAK, ['\''] = CLS_BREAK,
    ['|'] = CLS_BREAK, ['@'] = CLS_BREAK, ['#'] = CLS_BREAK, ['/'] = CLS_BREAK,
    ['<'] = CLS_BREAK, ['>'] = CLS_BREAK, ['`'] = CLS_BREAK, ['\x1b'] = CLS_BREAK,
    ['&'] = CLS_BREAK, /* only between a query's fields (query_join); else the atom's */
};

/*
 * Eight bytes at once (SWAR): the high bit of each byte of the result is set
 * when that byte of w is a letter, a digit, '.', '-' or '_' (the bytes most
 * words and numbers are made of; none is a break); *digits gets the high
 * bits of the digits.  A per-byte range test done on the whole word: once
 * bytes >= 0x80 are excluded, adding a constant below 0x80 to a byte never
 * carries into its neighbour.
 */
FUSE_INLINE uint64_t simple_bytes(uint64_t w, uint64_t *digits)
{
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    uint64_t ascii = ~w & high;
    w &= 0x7f * ones;
    uint64_t folded = w | (0x20 * ones);
    uint64_t letter = (folded + 0x1f * ones) & ~(folded + 0x05 * ones); /* a-z, A-Z */
    uint64_t digit = (w + 0x50 * ones) & ~(w + 0x46 * ones);           /* 0-9 */
    uint64_t dash_dot = (w + 0x53 * ones) & ~(w + 0x51 * ones);        /* - . */
    uint64_t x = w ^ (0x5f * ones);
    uint64_t underscore = ~(((x & (0x7f * ones)) + 0x7f * ones) | x);  /* _ */
    *digits = digit & ascii;
    return (letter | digit | dash_dot | underscore) & ascii;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FUSE_SWAR (FUSE_RULES_OFF == 0)
#else
#define FUSE_SWAR 0
#endif

/*
 * Nonzero when all of s[0..8) are simple bytes (see simple_bytes), with
 * *word set to them and *digit |= 1 when one is a digit.
 */
FUSE_INLINE int simple_word(const unsigned char *s, uint64_t *word, unsigned *digit)
{
#if FUSE_SWAR
    uint64_t w, digits;
    memcpy(&w, s, 8);
    if (simple_bytes(w, &digits) != 0x8080808080808080ULL)
        return 0;
    *digit |= digits != 0;
    *word = w;
    return 1;
#else
    (void)s, (void)word, (void)digit;
    return 0;
#endif
}


/*
 * s[0..n) is a function and its offset as symbolizers print a code address,
 * "name+0xOFFSET" or "name+0xOFFSET/0xSIZE" (backtrace_symbols(), Xorg's
 * "(OsLookupColor+0x139)", the kernel's "do_page_fault+0x12f/0x446"): not
 * base64, though a name in camel case and a hex number alternate byte kinds
 * as often.  The name is code (symbol_prefix) and the offset a value.
 */
static int is_symbol_offset(const char *s, size_t n)
{
    size_t i = symbol_prefix(s, n);
    for (int part = 0; i > 0 && part < 2; part++) {
        if (i + 2 >= n || s[i] != '0' || (s[i + 1] | 0x20) != 'x')
            return 0;
        i += 2;
        while (i < n && is_hex_byte(s[i]))
            i++;
        if (i == n)
            return 1;
        if (s[i] != '/')
            return 0;
        i++;
    }
    return 0;
}

/*
 * The length of the base64 text opening s[i..n) ("v9+pgEBNDmos+tJmb7e4p7YF/
 * lktpFQ", an SSH key's fingerprint after "SHA256:"; keys, nonces, tokens),
 * '=' padding included, or 0.  Bytes printed in base64 are one value, but
 * its '+' and '/' cut them into atoms, and an atom of letters alone stayed a
 * word (or one with a digit or two a name, "SiEOgPQ1EPqwvKVzX"), so each
 * fingerprint made a template of its own.  Base64 is told from names of
 * code by how often the kind of byte changes (capital, small letter, digit,
 * '+' or '/'): about two bytes in three in random bytes so written, one in
 * four in "IO80211Family/IO80211AWDLPeerManager" or "207/Prototypes/Player".
 * At least 16 bytes, with a '+' or '/' inside (without one the text is one
 * atom, which the digit rules decide), a digit, a capital and a small
 * letter, and changes at half the bytes or more; or closed by its '='
 * padding (below).  The byte kinds alone
 * decide, never which digits: lines of one shape mask alike (fuse_shape.h).
 * *run_end gets the end of the bytes scanned: no base64 text starts at a
 * later piece of them.
 */
__attribute__((noinline)) /* rare: kept out of mask_token()'s loop */
static size_t base64_span(const char *s, size_t i, size_t n, size_t *run_end)
{
    /* the kind of each byte of base64's alphabet, 0 for the others */
    enum { UPPER = 1, LOWER = 2, DIGIT = 3, SIGN = 4 };
    static const unsigned char kind_of[256] = {
        ['+'] = SIGN, ['/'] = SIGN,
        ['0'] = DIGIT, ['1'] = DIGIT, ['2'] = DIGIT, ['3'] = DIGIT, ['4'] = DIGIT,
        ['5'] = DIGIT, ['6'] = DIGIT, ['7'] = DIGIT, ['8'] = DIGIT, ['9'] = DIGIT,
        ['A'] = UPPER, ['B'] = UPPER, ['C'] = UPPER, ['D'] = UPPER, ['E'] = UPPER,
        ['F'] = UPPER, ['G'] = UPPER, ['H'] = UPPER, ['I'] = UPPER, ['J'] = UPPER,
        ['K'] = UPPER, ['L'] = UPPER, ['M'] = UPPER, ['N'] = UPPER, ['O'] = UPPER,
        ['P'] = UPPER, ['Q'] = UPPER, ['R'] = UPPER, ['S'] = UPPER, ['T'] = UPPER,
        ['U'] = UPPER, ['V'] = UPPER, ['W'] = UPPER, ['X'] = UPPER, ['Y'] = UPPER,
        ['Z'] = UPPER,
        ['a'] = LOWER, ['b'] = LOWER, ['c'] = LOWER, ['d'] = LOWER, ['e'] = LOWER,
        ['f'] = LOWER, ['g'] = LOWER, ['h'] = LOWER, ['i'] = LOWER, ['j'] = LOWER,
        ['k'] = LOWER, ['l'] = LOWER, ['m'] = LOWER, ['n'] = LOWER, ['o'] = LOWER,
        ['p'] = LOWER, ['q'] = LOWER, ['r'] = LOWER, ['s'] = LOWER, ['t'] = LOWER,
        ['u'] = LOWER, ['v'] = LOWER, ['w'] = LOWER, ['x'] = LOWER, ['y'] = LOWER,
        ['z'] = LOWER,
    };
    *run_end = i + 1;
    if (n - i < 16)
        return 0;
    const unsigned char *u = (const unsigned char *)s;
    unsigned seen = 0, last = kind_of[u[i]];
    size_t e = i, changes = 0;
    for (unsigned kind; e < n && (kind = kind_of[u[e]]) != 0; e++) {
        changes += kind != last;
        last = kind;
        seen |= 1u << kind;
    }
    *run_end = e;
    const size_t len = e - i;
    size_t pad = 0;
    while (pad < 2 && e + pad < n && s[e + pad] == '=')
        pad++;
    /*
     * Padded: one or two '=' closing the text, its length then a multiple
     * of four, at the token's end or before punctuation (a digest's 27
     * bytes and '=', "pzkBmkSHPMlxIvVo8tgiXjZn3pM=").  Padding is what an
     * encoder writes and a name never does, so a '+' or '/' is not needed
     * and a third of the bytes changing kind is enough (a digest in base64
     * changes at two in three, a name with a number after it at few).
     */
    const int padded = pad > 0 && (len + pad) % 4 == 0 && len >= 20 &&
                       (e + pad == n || (!is_alnum_byte(s[e + pad]) && s[e + pad] != '='));
    const unsigned text = 1u << UPPER | 1u << LOWER | 1u << DIGIT;
    if (padded ? (seen & text) != text || 3 * changes < len - 1
               : len < 16 || seen != (text | 1u << SIGN) || 2 * changes < len - 1)
        return 0;
    if (kind_of[u[e - 1]] == SIGN || is_symbol_offset(s + i, len))
        return 0;
    return len + pad;
}

/*
 * An attribute type that names a distinguished name's part (RFC 4514's and
 * RFC 4519's: "cn", "ou", "dc", "uid", "o", "c", "l", "st", "street"), any case.
 */
static int is_dn_attribute(const char *s, size_t n)
{
    static const char names[][7] = {"cn", "ou", "dc", "uid", "o", "c", "l", "st", "street"};
    if (n == 0 || n > 6)
        return 0;
    char lower[7] = {0};
    for (size_t k = 0; k < n; k++)
        lower[k] = (char)(s[k] | 0x20);
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (memcmp(names[k], lower, 7) == 0)
            return 1;
    return 0;
}

/*
 * The length of an LDAP distinguished name opening s[i..n), two or more
 * "type=value" parts joined by ',' ("uid=alice,ou=people,dc=example,dc=com",
 * "cn=config" alone is none), or 0.  A name is one value (rule key-values):
 * masked part by part, each depth of it made a template of its own (389 Directory
 * Server's "Found in cache for dn:uid=<*>,ou=<*>,dc=<*>,dc=<*>" beside
 * "dn:ou=<*>,dc=<*>,dc=<*>").  A value ends at ',' or a closer.
 */
static size_t dn_span(const char *s, size_t i, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_KEY_VALUES))
        return 0;
    size_t k = i, parts = 0, end = i;
    for (;;) {
        const size_t type = k;
        while (k < n && is_letter(s[k]))
            k++;
        if (k >= n || s[k] != '=' || !is_dn_attribute(s + type, k - type))
            break;
        k++;
        const size_t value = k;
        while (k < n && s[k] != ',' && !memchr(")]}\"';=", s[k], 7))
            k++;
        if (k == value || (k < n && s[k] == '='))
            break;
        parts++;
        end = k;
        if (k >= n || s[k] != ',')
            break;
        k++;
    }
    return parts >= 2 ? end - i : 0;
}

/*
 * Nonzero when s[0..n) closes with '=' and maybe punctuation after it
 * (base64's padding, maybe: base64_span's test is looked for only there,
 * not at every '=' of a key).
 */
static int closes_with_padding(const char *s, size_t n)
{
    while (n > 0 && !is_alnum_byte(s[n - 1]) && s[n - 1] != '=')
        n--;
    return n > 0 && s[n - 1] == '=';
}

/*
 * Nonzero when s[0..n) closes with base64 text and its '=' padding
 * (base64_span): that '=' is no key's ("user3:pzkBmkSHPMlxIvVo8tgiXjZn3pM="
 * is a user and a digest, not a key with an empty value).
 */
static int ends_with_base64(const char *s, size_t n)
{
    size_t from = n;
    while (from > 0 && n - from < 2 && s[from - 1] == '=')
        from--;
    if (from == n || FUSE_RULE_OFF(FUSE_RULE_BASE64))
        return 0;
    while (from > 0 && (is_alnum_byte(s[from - 1]) || s[from - 1] == '+' || s[from - 1] == '/'))
        from--;
    size_t scanned;
    return n - from >= 21 && base64_span(s, from, n, &scanned) == n - from;
}

/* Longest masked form of a token of n bytes ("1,2" -> "<*>,<*>", "()" -> "(<*>)"). */
#define MASKED_MAX(n) (3 * (n) + 3)

static char *put_wildcard(char *o)
{
    o[0] = '<';
    o[1] = '*';
    o[2] = '>';
    return o + 3;
}

/* A "<*>" unless the output ends with one already (adjacent values merge); then it does. */
FUSE_INLINE char *put_wildcard_once(char *o, int *last_wild)
{
    if (!*last_wild)
        o = put_wildcard(o);
    *last_wild = 1;
    return o;
}

/* Writes "<*>" in the quotes q ("\"<*>\""), a quoted value's masked form. */
static char *put_quoted_wildcard(char *o, char q)
{
    *o++ = q;
    o = put_wildcard(o);
    *o++ = q;
    return o;
}

/*
 * Variables joined only by ':', '/', '#', ',' or '@' are one value: an
 * address and its port ("10.0.0.1:80", "host.example.org:80",
 * "name/10.0.0.1:80"), a time ("12:34:56"), a date ("2017/07/01"), a list
 * printed as one field ("20##30##40", "0x60,0x64", "type=7,0,old=1": a key's
 * value runs to the next key), an object or user at a place
 * ("c.Manager@3a2b1c", "Connector@0.0.0.0:62267", "user@10.0.0.1").  The
 * pieces of such a value are never a message's words, and the full-size
 * Loghub-2.0 ground truth writes every one of them as one "<*>" (none of its
 * template lists holds "<*>:<*>", "<*>/<*>" or "<*>@<*>", one of its 1,300
 * templates "<*>,<*>").  Rewrites
 * out[0..len) in place and returns the new length.
 */
static size_t merge_joined(char *out, size_t len)
{
    if (FUSE_RULE_OFF(FUSE_RULE_JOINED))
        return len;
    size_t r = 0, w = 0;
    while (r < len) {
        if (w >= 3 && is_wild_at(out, w - 3, w) &&
            (out[r] == '#' || out[r] == ':' || out[r] == '/' || out[r] == ',' || out[r] == '@')) {
            size_t e = r + 1;
            while (e < len && out[e] == '#' && out[r] == '#')
                e++;
            if (is_wild_at(out, e, len)) {
                r = e + 3;
                continue;
            }
        }
        out[w++] = out[r++];
    }
    return w;
}

/*
 * Spelled like a DNS host name: lowercase letters, digits and '-' in two or
 * more dot-separated labels, the last one (the top-level domain) letters
 * only and at least two of them ("proxy.example.org").  Source files
 * ("sweep.c", "ib_sm.c") and code names ("Animator.destroySurface") fail
 * on the one-letter suffix, the underscore or the capitals.
 */
static int is_host_name(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_HOSTS))
        return 0;
    size_t dots = 0, label = 0, letters_only = 1;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '.') {
            if (label == 0)
                return 0;
            dots++;
            label = 0;
            letters_only = 1;
        } else if ((c >= 'a' && c <= 'z') || c == '-' || (c >= '0' && c <= '9')) {
            label++;
            letters_only &= c >= 'a' && c <= 'z';
        } else {
            return 0;
        }
    }
    return dots > 0 && label >= 2 && letters_only;
}

/*
 * A port number at s[at]: one to five decimal digits, then the end of s or
 * a byte that is no letter or digit ("host:8080", "host:80/", "host:443,").
 * After a dotted name, "n.round:0x1" (ZooKeeper's election notices) is a
 * key and its value in hex, no host and port.
 */
static int is_port_at(const char *s, size_t at, size_t n)
{
    size_t e = at;
    while (e < n && e - at <= 5 && s[e] >= '0' && s[e] <= '9')
        e++;
    return e > at && e - at <= 5 && (e == n || !is_alnum_byte(s[e]));
}

/*
 * A DNS host name written out: three or more dot-separated labels of
 * lowercase letters, digits and '-', the last a top-level domain (a generic
 * one, "com" "net" "org" "edu" "gov" "mil" "int" "info" "biz", or a country
 * code), the first not a generic one ("proxy.example.org",
 * "www.example.co.uk";
 * sentence dots after it are ignored).  A host is a value: the machine a
 * message is about, "<*>" in every full-size ground truth even when the
 * line names one host only.  Code names are not hosts: a reverse-DNS
 * package or bundle id opens with the domain ("org.example.rpc.server",
 * "com.example.app"), a module path or a key ends in a word
 * ("app.compute.manager", "task.io.sort.mb"), a file in its
 * type ("chrome.exe", "sweep.c", two labels anyway).  "id" is left out of
 * the country codes: it is the abbreviation of "identifier" that ends
 * countless key names ("job.attempt.id").
 */
static int is_top_domain(const char *s, size_t n)
{
    static const char generic[] = "com net org edu gov mil int biz ";
    static const char country[] =
        "acadaeafagaialamaoaqarasatauawaxazbabbbdbebfbgbhbibjbmbnbobrbsbtbwbybz"
        "cacccdcfcgchcickclcmcncocrcucvcwcxcyczdedjdkdmdodzeceeegereseteufifjfk"
        "fmfofrgagdgegfggghgiglgmgngpgqgrgsgtgugwgyhkhmhnhrhthuieiliminioiqiris"
        "itjejmjojpkekgkhkikmknkpkrkwkykzlalblclilklrlsltlulvlymamcmdmemgmhmkml"
        "mmmnmompmqmrmsmtmumvmwmxmymznancnenfngninlnonpnrnunzompapepfpgphpkplpm"
        "pnprpsptpwpyqarerorsrurwsasbscsdsesgshsiskslsmsnsosrssstsusvsxsysztctd"
        "tftgthtjtktltmtntotrtttvtwtzuaugukusuyuzvavcvevgvivnvuwfwsyeytzazmzw";
    if (n == 3) {
        for (const char *q = generic; *q; q += 4)
            if (memcmp(q, s, 3) == 0)
                return 1;
        return 0;
    }
    if (n == 4)
        return memcmp(s, "info", 4) == 0;
    if (n != 2)
        return 0;
    for (const char *q = country; q[0] && q[1]; q += 2)
        if (q[0] == s[0] && q[1] == s[1])
            return 1;
    return 0;
}

static int is_dns_name_slow(const char *s, size_t n)
{
    while (n > 0 && s[n - 1] == '.')
        n--;
    if (n < 7)
        return 0;
    size_t labels = 1, label = 0, start = 0, first_end = 0, letters_only = 1;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '.') {
            if (label == 0)
                return 0;
            if (labels == 1)
                first_end = i;
            labels++;
            label = 0;
            start = i + 1;
            letters_only = 1;
        } else if ((c >= 'a' && c <= 'z') || c == '-' || (c >= '0' && c <= '9')) {
            label++;
            letters_only &= c >= 'a' && c <= 'z';
        } else {
            return 0;
        }
    }
    return labels >= 3 && label >= 2 && letters_only && is_top_domain(s + start, n - start) &&
           !(first_end == 3 && is_top_domain(s, 3));
}

/* The top-level domain has 2 to 4 letters: one look rejects almost every word. */
FUSE_INLINE int is_dns_name(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_HOSTS))
        return 0;
    return n >= 7 && (s[n - 3] == '.' || s[n - 4] == '.' || s[n - 5] == '.' || s[n - 1] == '.') &&
           is_dns_name_slow(s, n);
}

/* Length of a bound sign ("<", ">", "<=", ">=") opening s right before a digit, else 0. */
FUSE_INLINE size_t bound_sign(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_BOUND))
        return 0;
    if (n < 2 || (s[0] != '<' && s[0] != '>'))
        return 0;
    size_t k = s[1] == '=' ? 2 : 1, e = k;
    while (e < n && s[e] >= '0' && s[e] <= '9')
        e++;
    /* "<44>", "<0>Kernel": a number in angle brackets (a marked byte, a priority) */
    return e > k && !(s[0] == '<' && e < n && s[e] == '>') ? k : 0;
}

/*
 * Length of the hardware or IPv6 address at s[i..n), else 0: six or more
 * pairs of hex digits joined by one ':' or '-' throughout
 * ("00:11:43:ba:e4:0d", "00-0D-60-E9-1F-25", a 64-bit or longer hardware id
 * "FF:F2:9F:16:E2:23:00:0D:60:E9:1D:DC"), or groups of up to four hex
 * digits joined by ':', eight of them or fewer with one "::" for the groups
 * left out ("2607:f140:6000:8:c6b3:1ff:fecd:467f", "fe80::1", "::1"), with a
 * digit somewhere.  Masked piece by piece, a group of letters alone ("ba",
 * "fecd") stayed a word inside the address, so addresses of one message
 * differed as words.  Nothing of letters or ':' may touch it on either side
 * (a C++ name "ns::f2" has a group that is not hex; times have three groups).
 */
static size_t hex_groups(const char *s, size_t i, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_HEX_GROUPS))
        return 0;
    /* a ':' after at most four hex digits, or a pair and its '-': nearly
       every piece fails this first, at its first byte or few */
    size_t first = i, lim = n - i < 5 ? n : i + 5;
    while (first < lim && is_hex_byte(s[first]))
        first++;
    if (first == n || (s[first] != ':' && !(first == i + 2 && s[first] == '-' && n - i >= 17)))
        return 0;
    /* a ':' after a name's letter that no hex group holds ends a key:
       "addr:2e:42:ab:dc:5d:1a" (Open vSwitch), "inet6 addr:fe80::1" */
    const int after_key = i >= 2 && s[i - 1] == ':' && is_letter(s[i - 2]) && !is_hex_byte(s[i - 2]);
    if (i > 0 && (is_alnum_byte(s[i - 1]) || (s[i - 1] == ':' && !after_key) || s[i - 1] == '-' ||
                  s[i - 1] == '.' || s[i - 1] == '_'))
        return 0;
    /* pairs: six or more, one separator throughout */
    if (n - i >= 17 && is_hex_byte(s[i]) && is_hex_byte(s[i + 1]) &&
        (s[i + 2] == ':' || s[i + 2] == '-')) {
        const char sep = s[i + 2];
        size_t pairs = 1, k = i + 2;
        while (k + 2 < n && s[k] == sep && is_hex_byte(s[k + 1]) && is_hex_byte(s[k + 2])) {
            pairs++;
            k += 3;
        }
        int digit = 0; /* without one, a word as the quick hash reads it ("aa-bb-...") */
        for (size_t q = i; q < k; q++)
            digit |= s[q] >= '0' && s[q] <= '9';
        /* (a separator closing the token too: a certificate's bytes printed
           a line at a time, "00:aa:97:dc:76:86:de:fb:2c:86:c1:a2:eb:a6:48:") */
        if (pairs >= 6 && digit &&
            (k == n || (k + 1 == n && s[k] == sep) ||
             !(is_alnum_byte(s[k]) || s[k] == sep || s[k] == '_')))
            return k - i;
    }
    /* IPv6: groups of 1..4 hex digits; "::" once, for the groups left out */
    size_t k = i, groups = 0;
    int gap = 0, digit = 0;
    for (;;) {
        size_t g = 0;
        while (k < n && g < 5 && is_hex_byte(s[k])) {
            digit |= s[k] >= '0' && s[k] <= '9';
            g++;
            k++;
        }
        if (g > 4)
            return 0;
        groups += g > 0;
        if (k + 1 < n && s[k] == ':' && s[k + 1] == ':') {
            if (gap)
                return 0;
            gap = 1;
            k += 2;
            continue;
        }
        if (g > 0 && k + 1 < n && s[k] == ':' && is_hex_byte(s[k + 1])) {
            k++;
            continue;
        }
        break;
    }
    /* a network's prefix length after it ("2001:db8::/32", "fe80::/64:",
       "::/0", the default route, as routing daemons print them): the
       address's, as a CIDR's is one value */
    size_t prefix = 0; /* bytes of "/NNN" */
    if ((gap || groups == 8) && k + 1 < n && s[k] == '/' && s[k + 1] >= '0' && s[k + 1] <= '9') {
        prefix = 2;
        while (k + prefix < n && prefix < 4 && s[k + prefix] >= '0' && s[k + prefix] <= '9')
            prefix++;
        digit = 1;
    }
    /* "[::]": the unspecified address, bracketed as sockets and URLs print
       it (squid's "remote=[::]"), the "0.0.0.0" of IPv6, has no digit */
    const int unspecified = gap && groups == 0 &&
                            ((i > 0 && s[i - 1] == '[' && k < n && s[k] == ']') || prefix);
    if (!unspecified && (!digit || (gap ? groups > 7 || k - i < 3 : groups != 8)))
        return 0;
    k += prefix;
    if (k < n && (is_alnum_byte(s[k]) || (s[k] == ':' && !prefix) || s[k] == '_'))
        return 0;
    return k - i;
}

/*
 * Nonzero when s[at..at+2) is a "::" joining two names: a letter, digit or
 * '_' before it, a letter, '_' or '~' (a destructor) after it.
 */
static int scope_at(const char *s, size_t at, size_t n)
{
    return at > 0 && at + 2 < n && s[at] == ':' && s[at + 1] == ':' &&
           (is_alnum_byte(s[at - 1]) || s[at - 1] == '_') &&
           (is_letter(s[at + 2]) || s[at + 2] == '_' || s[at + 2] == '~');
}

/*
 * Nonzero when the piece s[from..to) is a name joined to another by "::"
 * ("IO80211AWDLPeerManager::setAwdlAutoMode", "Type2::prePCIWake",
 * "ns::waitForOk2Go2Sx"): C++ and Objective-C print a function with its
 * class or namespace so, and such names are the message's own code, whatever
 * digits they spell; the ground truths keep them.  The piece must open with
 * a letter or '_' and the name across "::" too (an IPv6 address was taken
 * whole before, see hex_groups).
 */
static int is_scoped_name(const char *s, size_t from, size_t to, size_t n)
{
    /* (a destructor, "Class::~Class", opens with its '~') */
    const size_t name = from + (from < to && s[from] == '~' && from >= 2);
    if (FUSE_RULE_OFF(FUSE_RULE_SCOPED_NAMES) || to <= name || !(is_letter(s[name]) || s[name] == '_'))
        return 0;
    return scope_at(s, to, n) || (from >= 2 && scope_at(s, from - 2, n));
}

/*
 * Nonzero when the atom name[0..len), right before the '@' at s[at], and the
 * hex digits after it are a Java object's identity as Object.toString()
 * prints it: a package-qualified class name (three or more dotted names),
 * '@', its hash code in hex ("org.apache.hadoop.x.TaskEvent@5ab2a0",
 * "com.huawei.health.g.c@3a2b1c0").  Such a value names one object of a
 * run, not the message: the full-size ground truth writes it whole as one
 * "<*>" (Hadoop's "Error writing History Event: <*>", Zookeeper's "info :
 * <*>").  A plain name before '@' and a number is a function and its line
 * ("doSaveChannels@151:"), and stays.
 */
static int is_object_identity(const char *name, size_t len, const char *s, size_t at, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_OBJECTS) || len < 5)
        return 0;
    size_t dots = 0;
    for (size_t k = 0; k < len; k++) {
        const char c = name[k];
        if (c == '.') {
            if (k == 0 || k + 1 == len || name[k - 1] == '.')
                return 0;
            dots++;
        } else if (!is_alnum_byte(c) && c != '_' && c != '$') {
            return 0;
        } else if ((k == 0 || name[k - 1] == '.') && !is_letter(c) && c != '_') {
            return 0; /* each name opens with a letter */
        }
    }
    size_t e = at + 1; /* the hash: lowercase hex digits, at most 15 */
    while (e < n && e - at <= 16 && is_hex_byte(s[e]) && !(s[e] >= 'A' && s[e] <= 'F'))
        e++;
    const size_t digits = e - at - 1;
    return dots >= 2 && digits >= 1 && digits <= 15 && (e == n || !is_alnum_byte(s[e]));
}

/* Nonzero when s[0..n) is a URI scheme: a letter, then letters, digits, '+', '-', '.'. */
static int is_scheme(const char *s, size_t n)
{
    return is_name_of(s, n, "+-.");
}

/* Nonzero when s[0..n) is letters only (n > 0). */
static int is_letters(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_letter(s[i]))
            return 0;
    return n > 0;
}

/* Nonzero when out[..o) ends with "<*>". */
static int ends_with_wildcard(const char *out, const char *o)
{
    return o - out >= LTK_WILDCARD_LEN && is_wild_at(o - LTK_WILDCARD_LEN, 0, LTK_WILDCARD_LEN);
}

/* A byte of a key's name, or of a one-word value: letters, digits, '_', '.', '-'. */
FUSE_INLINE int is_key_byte(char c)
{
    return is_alnum_byte(c) || c == '_' || c == '.' || c == '-';
}

/*
 * The key that ends at s[at] (its '=') names the message itself, as
 * structured loggers write it: "msg" (logfmt's, go-kit's, logrus', zap's,
 * slog's, pino's), "message" (winston's, python-json-logger's), "event"
 * (structlog's) or "log" (Docker's json-file driver and Fluentd: the line a
 * container printed), any case.  msg="Starting" is the line's message,
 * words the developer wrote, not a value: with the other keys' values
 * masked, a service's one-word messages ("Starting", "Stopping") were one
 * template.  (Its first test is one byte: nearly every key fails it.)
 */
FUSE_INLINE int is_message_key(const char *s, size_t at)
{
    const char last = at ? (char)(s[at - 1] | 0x20) : 0;
    if (last != 'g' && last != 'e' && last != 't')
        return 0;
    const char *key = last == 'g' ? (at >= 3 && (s[at - 3] | 0x20) == 'l' ? "log" : "msg")
                      : last == 'e' ? "message" : "event";
    const size_t len = last == 'g' ? 3 : last == 'e' ? 7 : 5;
    if (at < len || (at > len && is_key_byte(s[at - len - 1])))
        return 0;
    for (size_t i = 0; i < len; i++)
        if ((s[at - len + i] | 0x20) != key[i])
            return 0;
    return 1;
}

/*
 * The index of the opening quote of a JSON object's member name whose ':'
 * is s[at], SIZE_MAX when s[at] is no such ':'.  is_member_sign() is
 * nonzero when s[at] is the ':' after the name of a JSON object's member
 * ("{\"pid\":42", ",\"user\":\"alice\""): a quoted name of key bytes, a
 * letter among them, whose opening quote starts s or follows the '{' or ','
 * before a member.  A JSON log line is its logger's keys and their values,
 * as a logfmt line is ("pid=42 user=alice"), and the member's value is a
 * value as a key's is; but for the message's ("\"msg\":\"Starting\"",
 * is_message_key).  A name in single quotes is a member's of a Python
 * dict's repr ("{'pid': 42, 'user': 'alice'}"), which is read so when a
 * blank follows its ':' (is_spaced_member_name; is_key_sign reads JSON's).
 */
static size_t member_name_at(const char *s, size_t at)
{
    if (at < 3 || (s[at - 1] != '"' && s[at - 1] != '\''))
        return SIZE_MAX;
    const char q = s[at - 1];
    size_t k = at - 1;
    int letter = 0;
    while (k > 0 && is_key_byte(s[k - 1]))
        letter |= is_letter(s[--k]);
    if (!letter || k == 0 || s[k - 1] != q || (k > 1 && s[k - 2] != '{' && s[k - 2] != ','))
        return SIZE_MAX;
    return k - 1;
}

/* member_name_at() for a member whose value is a value: not the message's. */
static int is_member_sign(const char *s, size_t at)
{
    return member_name_at(s, at) != SIZE_MAX && !is_message_key(s, at - 1);
}

/*
 * Nonzero when s[at] is the '=' of a key ("tty=ssh", "logname=",
 * "(threshold=5)"): right after a name holding a letter, and no '=' after
 * it ("a==b" is an operator, "0=sup" numbers a list); or the ':' of a JSON
 * member (is_member_sign), or the '>' of a quoted hash key's "=>" (Ruby's
 * and Perl's dumps, "{\"user\"=>\"frank\", \"n\"=>\"4\"}").  The key of the
 * message ("msg=") assigns no value (is_message_key).  A name may close with
 * one index in brackets, an element of an array ("argv[3]=", "envp[12]=",
 * "toolType[0]=": CUPS' filters' arguments, Android's pointers), as code
 * prints "%s[%d]=".
 */
static int is_key_sign(const char *s, size_t at, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_KEY_VALUES))
        return 0;
    if (s[at] == ':') { /* (its first test here: most colons follow no quote) */
        if (at >= 3 && s[at - 1] == '"')
            return is_member_sign(s, at);
        /* a name glued to its ':' before a quoted value, "name:\"TimeZone\""
           (pgpool's parameters, Go's %+v of strings): the name a key's */
        if (at + 1 >= n || (s[at + 1] != '"' && s[at + 1] != '\'') || at == 0)
            return 0;
        size_t k = at;
        while (k > 0 && is_key_byte(s[k - 1]))
            k--;
        return k < at && is_letter(s[k]);
    }
    if (s[at] == '>')
        return at >= 3 && s[at - 1] == '=' && (s[at - 2] == '"' || s[at - 2] == '\'');
    if (s[at] != '=' || (at + 1 < n && s[at + 1] == '='))
        return 0;
    size_t k = at;
    if (k > 0 && s[k - 1] == ']') { /* the index: key bytes in brackets, then the name */
        k--;
        while (k > 0 && is_key_byte(s[k - 1]))
            k--;
        if (k < 2 || s[k - 1] != '[')
            return 0;
        k--;
    }
    for (; k > 0; k--) {
        char c = s[k - 1];
        if (is_letter(c))
            return !is_message_key(s, at);
        if (!is_key_byte(c))
            return 0;
    }
    return 0;
}

/*
 * Nonzero when the atom s[from..to) is a key's whole value in brackets,
 * "tty=(ssh)", "cat=[LAUNCHER]": the brackets are the value's punctuation
 * and the word in them the value, as "tty=ssh"'s (the full-size ground
 * truths write "opts=(<*>)", "updateCheckTag=(<*>)", Android's "cat=[<*>]").
 */
FUSE_INLINE int is_bracketed_key_value(const char *s, size_t from, size_t to, size_t n)
{
    if (from < 3 || to >= n ||
        !((s[from - 1] == '(' && s[to] == ')') || (s[from - 1] == '[' && s[to] == ']')))
        return 0;
    return is_key_sign(s, from - 2, n);
}

/*
 * The length of a key's whole value written as a placeholder in angle
 * brackets, from the '<' at s[at] through its '>' ("err=<nil>", Go's nil;
 * "java.compiler=<NA>", "version=<none>"; a mail address, "to=<bob@x.org>",
 * and the null sender, "from=<>"; an id in base64, Dovecot's
 * "session=<XtlOCfxhfsV/AAAB>", which was masked inside its brackets when it
 * held a digit and not at all when it did not), or 0: letters, digits and
 * "_-.@+%/=" (or nothing) right after the key's '=', and after the '>' the token's end or
 * punctuation that closes a field.  The value of a key is a value (rule
 * key-values) whatever it prints; the full-size ground truth writes
 * Zookeeper's "Server environment:java.compiler=<*>", the Loghub-2.0 2k one
 * sendmail's "from=<*>" and "msgid=<*>".
 */
static size_t bracketed_key_value(const char *s, size_t at, size_t n)
{
    if (at == 0 || !is_key_sign(s, at - 1, n))
        return 0;
    size_t k = at + 1;
    while (k < n && (is_alnum_byte(s[k]) || memchr("_-.@+%/=", s[k], 8)))
        k++;
    if (k == n || s[k] != '>' || s[k - 1] == '.' ||
        (k + 1 < n && !memchr(",;)]}&", s[k + 1], 6)))
        return 0;
    return k + 1 - at;
}

/*
 * The index of the quote q that closes a quoted string, searched in
 * s[from..n), or n when none does: a quote escaped by a backslash is the
 * string's (an ETag in JSON, "W/\\\"3-kql\\\"": JSON's and Go's %q escapes).
 */
static size_t closing_quote(const char *s, size_t from, size_t n, char q)
{
    for (const char *c; from < n && (c = memchr(s + from, q, n - from)) != NULL;) {
        size_t at = (size_t)(c - s), escapes = 0;
        while (at - escapes > from && s[at - escapes - 1] == '\\')
            escapes++;
        if (!(escapes & 1))
            return at;
        from = at + 1;
    }
    return n;
}

/*
 * Nonzero when the quote s[at] opens a string element of a JSON array: it
 * follows the array's '[' or the ',' after the string element before it,
 * in a '[' that s leaves open before it, within FUSE_ARRAY_LOOKBACK bytes
 * ("Server":["Caddy","SimpleHTTP/0.6 Python/3.11.2"]).  An array's values are values as a member's are; its
 * caller tests that the string is followed by ',' or ']', not by a name's
 * ':' (an array of objects, [{"name":..}, holds names too).
 */
#define FUSE_ARRAY_LOOKBACK 1024
static int opens_array_element(const char *s, size_t at)
{
    if (at == 0 || s[at] != '"')
        return 0;
    if (s[at - 1] == '[')
        return 1;
    if (s[at - 1] != ',' || at < 2 || s[at - 2] != '"')
        return 0;
    size_t closed = 0; /* brackets closed between the '[' and s[at] */
    /* (a bounded look back: each element of a long array asks) */
    const size_t stop = at > FUSE_ARRAY_LOOKBACK ? at - FUSE_ARRAY_LOOKBACK : 0;
    for (size_t k = at - 1; k > stop; k--) {
        if (s[k - 1] == ']')
            closed++;
        else if (s[k - 1] == '[' && closed-- == 0)
            return 1;
        else if (s[k - 1] == '{' || s[k - 1] == '}')
            return 0; /* an object's member, or an array of objects */
    }
    return 0;
}

/*
 * Whether the escaped quote of a value ends where s[at] is (at <= n): the
 * token's end, a field's punctuation or the next escape.
 */
static int closes_escaped_value(const char *s, size_t at, size_t n)
{
    /* (a colon or period closing the token ends a sentence: 'digest=\"md5:ab\": unsupported') */
    return at >= n || memchr(",;)]}&\\", s[at], 7) != NULL ||
           (at + 1 == n && (s[at] == ':' || s[at] == '.'));
}

/*
 * The length of a key's value in escaped quotes within one token, from the
 * backslash at s[at] (before '"') through the closing backslash and quote
 * ('info=\"Office\"', 'addr=\":8080\"\n' in a JSON string), or 0: no
 * other quote inside, and after it the token's end, a field's punctuation
 * or the next escape.
 */
static size_t escaped_key_value(const char *s, size_t at, size_t n)
{
    for (size_t k = at + 2; k < n; k++) {
        if (s[k] != '"')
            continue;
        if (s[k - 1] != '\\')
            return 0; /* a bare quote inside: another kind of string */
        return closes_escaped_value(s, k + 1, n) ? k + 1 - at : 0;
    }
    return 0;
}

/*
 * The length of a key's whole value in quotes within one token, from the
 * quote at s[at] through its closing quote ("tag=\"WindowManager\"",
 * "name='SOURCE'", dn="uid=alice,ou=people,dc=example,dc=com", dn=""), or
 * 0; after the closing quote, the token's end or a field's punctuation.  A
 * key's value is a value quoted or not (rule key-values): the ground truths
 * write Android's tag="<*>"; masked piece by piece, OpenLDAP's "ADD dn=..."
 * lines made a template per depth of the name ("uid=<*>,ou=<*>,dc=<*>,
 * dc=<*>") and its anonymous binds (dn="") one apart from the others.
 */
static size_t quoted_key_value(const char *s, size_t at, size_t n)
{
    if (at == 0)
        return 0;
    const int key = is_key_sign(s, at - 1, n);
    if (!key && s[at - 1] != '[' && !(s[at - 1] == ',' && at >= 2 && s[at - 2] == '"'))
        return 0; /* (the first test of opens_array_element) */
    const size_t end = closing_quote(s, at + 1, n, s[at]);
    if (end == n)
        return 0;
    if (!key && (end + 1 == n || (s[end + 1] != ',' && s[end + 1] != ']') ||
                 !opens_array_element(s, at)))
        return 0; /* a JSON array's element is followed by ',' or ']' (a name by ':') */
    size_t first = at + 1; /* a source location is code, quoted or not ("caller":"main.go:42") */
    while (first < end && is_key_byte(s[first]))
        first++;
    if (names_source(s, at + 1, first, end))
        return 0;
    if (end + 1 < n && (!memchr(",;)]}&>", s[end + 1], 7) || (s[end + 1] == '>' && end + 2 < n)))
        return 0; /* more text glued after the quotes ('>' closing the token
                     closes an angle bracket's field: nslcd's <passwd="alice">;
                     an XML element's text after it is another matter) */
    return end + 1 - at;
}

/*
 * The word s[0..n) (a masked word: the line "<*>") names a source location,
 * "file.ext:<*>" (is_source_file): a stack frame
 * ("org.x.Client.fetch(Client.java:<*>)") or the call site a logger prints
 * ("DAVEngineImpl.cpp:<*>:Close").  Such a word is code, as a function with
 * its offset is: a slot of them is not made a variable by its count, so each
 * frame of a Java stack trace stays its own message (the function is the
 * message type, as for the kernel's "do_page_fault+<*>").
 */
static int holds_source_location(const char *s, size_t n)
{
    for (const char *c = memchr(s, ':', n); c != NULL;
         c = memchr(c + 1, ':', (size_t)(s + n - c - 1))) {
        /* a line after it and ".ext" (small letters) before it: only then the file */
        if (c + 1 == s + n || !((c[1] >= '0' && c[1] <= '9') || c[1] == '<'))
            continue;
        const char *dot = c;
        while (dot > s && c - dot < 6 && dot[-1] >= 'a' && dot[-1] <= 'z')
            dot--;
        if (dot == c || dot == s || dot[-1] != '.')
            continue;
        const char *from = c;
        while (from > s && is_key_byte(from[-1]))
            from--;
        if (is_source_file(from, (size_t)(c - from), s, (size_t)(c - s), n))
            return 1;
    }
    return 0;
}

/*
 * The dotted name atom[0..len) is called at s[i] ('(') with a source
 * location inside the parentheses: a stack frame's function, whatever its
 * package pieces spell ("org.apache.coyote.http11.Http11Processor.service(
 * Http11Processor.java:410)" was "<*>(Http11Processor.java:<*>)", its
 * "http11" a value).  The function is the frame's message.
 */
static int calls_at_source(const char *atom, size_t len, const char *s, size_t i, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_SOURCE_FILES) || len < 3 ||
        !(is_letter(atom[0]) || atom[0] == '_') || !memchr(atom, '.', len))
        return 0;
    const char *close = memchr(s + i, ')', n - i);
    const size_t inner = (close ? (size_t)(close - s) : n) - (i + 1);
    return inner > 0 && holds_source_location(s + i + 1, inner);
}

/* Nonzero when s[0..n) opens with a key and its '=' ("uid=0", "ruser="). */
static int opens_with_key(const char *s, size_t n)
{
    size_t k = 0;
    while (k < n && is_key_byte(s[k]))
        k++;
    return k > 0 && k < n && is_key_sign(s, k, n);
}

/*
 * Nonzero when token i ends with a key printed with an empty value: its
 * '=' closes it ("logname=") and what follows is the next key or the end
 * of the line ("logname= uid=0"); a value printed after a blank ("release=
 * 0") is the next token's.  The token's masked form then ends with "<*>"
 * (feed_tokens, learn_sequence), as the full-size ground truths write every
 * value of a key.
 */
static int is_empty_key(const logtk_slice *tok, size_t i, size_t n)
{
    const logtk_slice *t = &tok[i];
    if (FUSE_RULE_OFF(FUSE_RULE_KEY_VALUES) || t->len == 0 || t->ptr[t->len - 1] != '=')
        return 0;
    /* "error =" closing the line: a lone '=' after a word is that word's */
    int key = t->len > 1 ? is_key_sign(t->ptr, t->len - 1, t->len) && !ends_with_base64(t->ptr, t->len)
                         : i > 0 && tok[i - 1].len > 0 && is_letter(tok[i - 1].ptr[tok[i - 1].len - 1]);
    return key && (i + 1 == n || opens_with_key(tok[i + 1].ptr, tok[i + 1].len));
}

/*
 * A word spelled as a name of code rather than a word of prose: a capital
 * letter after its first byte ("NodeExists", "WARNING"), a '_' or a digit.
 * "Host", "queue" and "retval" are spelled as prose.
 */
static int is_constant_spelling(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((i > 0 && s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' || (s[i] >= '0' && s[i] <= '9'))
            return 1;
    return 0;
}

/*
 * The length of the word that token i is when it is the value of a key
 * printed with blanks around its '=' ("type = pid," -> "type = <*>,"): the
 * token before is a lone '=', the one before that ends with a letter, and
 * token i is one word (a letter, then is_key_byte()) with at most sentence
 * punctuation after it, which stays outside the value, and the next token
 * neither opens a bracket nor is an operator; without that punctuation, the
 * line ends, the next key follows or the word is spelled as a constant's
 * name (below).  0 otherwise.  The full-size
 * ground truths write such a value "<*>" (78 " = <*>" in their lists against
 * a few kept words, "= Intent { ... }").
 */
static size_t spaced_key_value(const logtk_slice *tok, size_t i, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_KEY_VALUES) || i < 2 || tok[i - 1].len != 1 ||
        tok[i - 1].ptr[0] != '=' || tok[i - 2].len == 0 ||
        !is_letter(tok[i - 2].ptr[tok[i - 2].len - 1]) || tok[i].len == 0 ||
        !is_letter(tok[i].ptr[0]))
        return 0;
    /* "= Intent { act=... }": the word opens a longer value; so does an
       operand before an operator ("abalance = abalance + -4077", SQL) */
    if (i + 1 < n && tok[i + 1].len > 0 && memchr("{([<", tok[i + 1].ptr[0], 4))
        return 0;
    if (i + 1 < n && tok[i + 1].len == 1 && memchr("+-*/%|&", tok[i + 1].ptr[0], 7))
        return 0;
    const char *w = tok[i].ptr;
    size_t len = tok[i].len, k = 0;
    while (k < len && is_key_byte(w[k]))
        k++;
    while (k > 1 && w[k - 1] == '.')
        k--;
    for (size_t r = k; r < len; r++)
        if (w[r] != ',' && w[r] != ';' && w[r] != '.')
            return 0;
    /* a word that punctuation does not close: before a lone '=' it is a
       key itself ("R = retval = fun(...)"); before a word that opens no key
       it opens a phrase ("message = Host web01, plugin load ..."), unless it
       is spelled as a constant's name ("KeeperErrorCode = NodeExists for
       /a", "<*>" in the full list), not as a word of prose */
    if (k == len && i + 1 < n) {
        const logtk_slice *next = &tok[i + 1];
        if (next->len == 1 && next->ptr[0] == '=')
            return 0;
        if (!opens_with_key(next->ptr, next->len) &&
            !(i + 2 < n && tok[i + 2].len == 1 && tok[i + 2].ptr[0] == '=') &&
            !is_constant_spelling(w, k))
            return 0;
    }
    return k;
}

/*
 * The length of the word that token i is when it is a flag's state given
 * as the value of a key glued to its ':' (rule booleans): "status: off"
 * and "NC Disabled: NO" closing the line, "Updating enabled: YES (Topics:
 * ...)", "Powered: on," -> "<*>".  The token before ends with ':' after a
 * letter; token i is a flag word (boolean_word) that closes the line,
 * comes before an opening bracket or the next such key ("Full_scan: Yes
 * Full_join: No"), or ends with ',' or ';', which stay outside the value.  The full-size ground truth writes each such value
 * "<*>" ("status: <*>", "NC Disabled: <*>") and keeps none; after the
 * key, more words are prose ("Connection timed out: no further
 * information").  0 otherwise.
 */
static size_t flag_key_value(const logtk_slice *tok, size_t i, size_t n)
{
    const logtk_slice *t = &tok[i];
    if (i == 0 || t->len < 2 || t->len > 4 || tok[i - 1].len < 2 ||
        tok[i - 1].ptr[tok[i - 1].len - 1] != ':' || !is_letter(tok[i - 1].ptr[tok[i - 1].len - 2]))
        return 0;
    size_t len = t->len;
    const int punct = t->ptr[len - 1] == ',' || t->ptr[len - 1] == ';';
    len -= (size_t)punct;
    if (boolean_word(t->ptr, len) == FUSE_NOT_BOOLEAN)
        return 0;
    if (punct || i + 1 == n)
        return len;
    const logtk_slice *next = &tok[i + 1];
    return next->len > 0 && (next->ptr[0] == '(' || (next->len > 1 && next->ptr[next->len - 1] == ':' &&
                                                     is_letter(next->ptr[next->len - 2])))
               ? len
               : 0;
}

/*
 * Rule control-escapes: rsyslog writes a control character inside a message
 * as '#' and three octal digits, "#012" for a newline, glued to the text
 * before it.  For the '#' at s[at]: 2 when it opens such an escape of a
 * control character (#000 to #037) after a byte that is no digit, 1 when
 * it opens three digits so placed that are no such escape ("issue#123",
 * a value), 0 otherwise.  A token with either reads its digits' values, which
 * no other mask does, so its line stands for itself in the line cache
 * (holds_glued_digits, feed_tokens): the cache takes a line for another
 * of its shape, digits aside.
 */
static int glued_escape(const char *s, size_t at, size_t n)
{
#define FUSE_DIGIT_AT(k) (s[k] >= '0' && s[k] <= '9')
    if (FUSE_RULE_OFF(FUSE_RULE_CONTROL_ESCAPES) || at == 0 || at + 3 >= n ||
        FUSE_DIGIT_AT(at - 1) || !FUSE_DIGIT_AT(at + 1) || !FUSE_DIGIT_AT(at + 2) ||
        !FUSE_DIGIT_AT(at + 3) || (at + 4 < n && FUSE_DIGIT_AT(at + 4)))
        return 0;
#undef FUSE_DIGIT_AT
    return s[at + 1] == '0' && s[at + 2] <= '3' && s[at + 3] <= '7' ? 2 : 1;
}

/* Whether token s[0..n) holds a '#' that glued_escape() reads by value. */
static int holds_glued_digits(const char *s, size_t n)
{
    for (const char *c = memchr(s, '#', n); c != NULL;
         c = memchr(c + 1, '#', (size_t)(s + n - c - 1)))
        if (glued_escape(s, (size_t)(c - s), n))
            return 1;
    return 0;
}

/* A systemd unit's type: "getty@tty1.service" names a unit and its instance, no mailbox. */
static int is_unit_type(const char *s, size_t n)
{
    static const char *const types[] = {"service", "socket", "device", "mount", "automount",
                                        "swap", "target", "path", "timer", "slice", "scope"};
    for (size_t k = 0; k < sizeof types / sizeof *types; k++)
        if (strlen(types[k]) == n && memcmp(types[k], s, n) == 0)
            return 1;
    return 0;
}

/*
 * A mail address filling s[0..n) but for brackets or quotes opening it and
 * those and punctuation closing it: a local part of letters, digits and
 * "._%+-" opening with a letter or digit, one '@', and a domain, "localhost"
 * or two or more labels of letters, digits and '-', the last of letters
 * ("bob@example.org", "<john.doe@corp.example>", "alice@localhost,"; rule
 * mail-addresses).  An address is a value, whoever's it is: as words, each
 * sender and recipient kept a template (Exim's "<= john.doe@corp.example
 * H=... for ann@partner.example"), and a recipient list was no list.  Not a
 * Java object's identity (a hash after the '@', rule objects), nor a systemd
 * unit's instance ("getty@tty1.service").  A key's value may be one,
 * after the key's '=' ("client=alice@EXAMPLE.TEST," -> "client=<*>,": the
 * domain was left as text after the masked local part), and so may a
 * Kerberos principal, whose local part names a service and its instance
 * with '/' ("kadmin/admin@EXAMPLE.TEST").  Sets *from and *to to the
 * address's bounds; returns 0 when s holds none.
 */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
/*
 * A user at an IPv4 address, maybe with its port: "chris@127.0.0.1",
 * "salesdb/alice@127.0.0.1:48700" (fetchmail's accounts, PgBouncer's
 * clients), the user in small letters (a class's "Connector@0.0.0.0:62267"
 * is an object and its address).  s[0..at) the user, (at, end) the address.
 */
static int is_user_at_address(const char *s, const char *at, const char *end)
{
    for (const char *c = s; c < at; c++)
        if (*c >= 'A' && *c <= 'Z')
            return 0;
    const char *c = at + 1;
    for (int group = 0; group < 4; group++) {
        const char *from = c;
        while (c < end && *c >= '0' && *c <= '9' && c - from < 3)
            c++;
        if (c == from || (group < 3 && (c == end || *c++ != '.')))
            return 0;
    }
    if (c < end && *c == ':') {
        const char *port = ++c;
        while (c < end && *c >= '0' && *c <= '9')
            c++;
        if (c == port)
            return 0;
    }
    return c == end;
}

static int mail_address(const char *s, size_t n, size_t *from, size_t *to)
{
    if (FUSE_RULE_OFF(FUSE_RULE_MAIL_ADDRESSES))
        return 0;
    size_t a = 0, b = n;
    /* a key's value, from after its '=' (one in brackets or quotes is the
       key-values rule's: "from=<bob@example.org>" -> "from=<*>") */
    const char *eq = memchr(s, '=', n);
    if (eq != NULL && eq > s && eq + 1 < s + n && is_alnum_byte(eq[1]) &&
        is_key_sign(s, (size_t)(eq - s), n))
        a = (size_t)(eq - s) + 1;
    while (a < b && memchr("<([\"'", s[a], 5))
        a++;
    while (b > a && memchr(">)]\"',;:.", s[b - 1], 9))
        b--;
    const char *at = a < b ? memchr(s + a, '@', b - a) : NULL;
    if (at == NULL || at == s + a || !is_alnum_byte(s[a]))
        return 0;
    const char *bang = NULL;
    for (const char *c = s + a; c < at; c++)
        if (*c == '!' && bang == NULL && c > s + a && c + 1 < at)
            bang = c;
        else if (!is_alnum_byte(*c) && !memchr("._%+-/", *c, 6))
            return 0;
    const char *d = at + 1, *end = s + b;
    if (bang != NULL) {
        /* IRC's hostmask, "alice!alice@127.0.0.1" (nick, user, host): one
           value whatever the host */
        const char *c = d;
        while (c < end && (is_alnum_byte(*c) || *c == '.' || *c == '-' || *c == ':'))
            c++;
        if (c == d || c != end)
            return 0;
        *from = a;
        *to = b;
        return 1;
    }
    if ((end - d == 9 && memcmp(d, "localhost", 9) == 0) || is_user_at_address(s + a, at, end)) {
        *from = a;
        *to = b;
        return 1;
    }
    size_t labels = 0, label_len = 0, last_letters = 1;
    const char *last = d;
    for (const char *c = d; c < end; c++) {
        if (*c == '.') {
            if (label_len == 0)
                return 0;
            labels++;
            label_len = 0;
            last_letters = 1;
            last = c + 1;
        } else if (is_alnum_byte(*c) || (*c == '-' && label_len > 0)) {
            label_len++;
            last_letters &= is_letter(*c);
        } else {
            return 0;
        }
    }
    if (labels == 0 || label_len < 2 || !last_letters || is_unit_type(last, label_len))
        return 0;
    *from = a;
    *to = b;
    return 1;
}

/* s[0..n) without the punctuation closing a token (",:;\"')]}."): a path's end. */
static size_t before_token_closers(const char *s, size_t n)
{
    while (n > 1 && memchr(",:;\"')]}.", s[n - 1], 9))
        n--;
    return n;
}

/*
 * A relative path without "./": names joined by single slashes, a letter
 * first, that end with a file's extension ("data2/n7.txt",
 * "sub1/readme_1.txt") or are three or more with a digit
 * ("tmp/h52c/rs/src2"), as backup and sync tools print the files they
 * handle.  Words joined by slashes ("seq/ack/win", "read/write", "TCP/IP")
 * and a product's name and number ("PS/2", "PRO/1000") are none.  The
 * punctuation closing the token is not the path's.
 */
static int is_relative_path(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_PATHS) || n < 4 || !is_letter(s[0]) || !memchr(s, '/', n))
        return 0;
    n = before_token_closers(s, n);
    size_t slashes = 0, segment = 0;
    int digit = 0, extension = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '/') {
            if (segment == 0)
                return 0;
            slashes++;
            segment = 0;
            extension = 0;
            continue;
        }
        if (!is_key_byte(s[i]))
            return 0;
        digit |= s[i] >= '0' && s[i] <= '9';
        extension = s[i] == '.' ? 1 : extension == 1 && is_letter(s[i]) ? 2 : extension;
        segment++;
    }
    return segment > 0 && ((slashes >= 2 && digit) || (slashes > 0 && extension == 2));
}

/*
 * The length of the terminal control sequence (ECMA-48 CSI) at s[i]: ESC,
 * '[', parameter bytes (digits, ';', ':', '<' to '?'), intermediate bytes
 * (' ' to '/') and one final byte ('@' to '~'); 0 when there is none.
 * *params: where its parameters end, from s[i].
 */
static size_t control_sequence(const char *s, size_t i, size_t n, size_t *params)
{
    assert(s[i] == '\x1b');
    size_t k = i + 1;
    if (k >= n || s[k] != '[')
        return 0;
    k++;
    while (k < n && s[k] >= '0' && s[k] <= '?')
        k++;
    *params = k - i;
    while (k < n && s[k] >= ' ' && s[k] <= '/')
        k++;
    if (k >= n || s[k] < '@' || s[k] > '~')
        return 0;
    return k + 1 - i;
}

/*
 * Nonzero when the '&' at s[at] joins two fields of a query or a form, the
 * value of a key before it and a key after it ("name=thing1&qty=3",
 * "user=bob&password=x"): the value ends there and the next key is text, as
 * between blanks ("name=<*>&qty=<*>"; "name=<*>=<*>" had taken "thing1&qty"
 * for the value and lost the second key).  A path's query is read whole
 * before (mask_token_reading).
 */
static int query_join(const char *s, size_t atom_from, size_t at, size_t n)
{
    /* (a value before it: an '&' opening the atom stays the atom's, or the
       scan would stop at it again and again, "x=&a=1") */
    if (FUSE_RULE_OFF(FUSE_RULE_KEY_VALUES) || atom_from == 0 || s[atom_from - 1] != '=' ||
        at <= atom_from || at + 2 >= n || !is_letter(s[at + 1]))
        return 0;
    size_t k = at + 1;
    while (k < n && is_key_byte(s[k]))
        k++;
    return k < n && s[k] == '=';
}


/*
 * The bytes of "(name)" at s[at] after a number, when the name closes its
 * value: letters, digits, '_', '-' and '.', a letter among them, then ')'
 * and the token's end or ',', ')', ']', ';' (mask_token_reading, a key's
 * value); else 0.
 */
static size_t named_number_annotation(const char *s, size_t at, size_t n)
{
    size_t k = at + 1;
    int letter = 0;
    while (k < n && (is_alnum_byte(s[k]) || s[k] == '_' || s[k] == '-' || s[k] == '.')) {
        letter |= is_letter(s[k]);
        k++;
    }
    if (!letter || k >= n || s[k] != ')' ||
        (k + 1 < n && !memchr(",)];", s[k + 1], 4)))
        return 0;
    return k + 1 - at;
}

/*
 * Writes the masked form of one token to out (room for MASKED_MAX(n) bytes)
 * and returns its length.  One pass, one table lookup per byte: the bytes of
 * an atom are copied as they are scanned, and an atom that turns out to hold
 * a digit is rewound and replaced by "<*>".  *by_value (when not NULL) is set
 * to 1 when the form read a digit's value (glued_escape), which feed_tokens
 * tells the line cache.
 */
static size_t mask_token_reading(const char *s, size_t n, char *out, int *by_value)
{
    char *o = out;
    if (n == 0)
        return 0;
    if ((s[0] == '^' || s[0] == '~') && is_caret_marks(s, n))
        return (size_t)(put_wildcard(o) - out);

    size_t mail_from, mail_to;
    if (n >= 5 && memchr(s, '@', n) && mail_address(s, n, &mail_from, &mail_to)) {
        memcpy(o, s, mail_from);
        o = put_wildcard(o + mail_from);
        memcpy(o, s + mail_to, n - mail_to);
        return (size_t)(o - out) + (n - mail_to);
    }
    /* "../sysdeps/nptl/libc_start_call_main.h:58": the directories are the value */
    const size_t rel = s[0] == '.' ? relative_source_dir(s, n) : 0;
    size_t path_to = 0; /* a relative path's end before the token's */
    /* a month or weekday, its comma too: "Sat, 05 Dec 2026 11:50:00" (RFC 5322, HTTP) */
    if ((s[0] == '.' && !rel && is_path(s, n)) || ltk_fuse_is_calendar_word(s, n) ||
        (n == 4 && s[3] == ',' && ltk_fuse_is_calendar_word(s, 3))) {
        /*
         * The punctuation closing the token stays outside the value: a
         * quote or bracket opened before it (ProFTPD's '"CWD ../.."'), a
         * comma, a colon, a sentence's period; not the dots of a last ".."
         * ("../..," -> "<*>,"), as an absolute path ends at such a byte.
         */
        size_t end = n;
        while (end > 1 && (memchr(",:;\"')]}", s[end - 1], 8) ||
                           (s[end - 1] == '.' && s[end - 2] != '.' && s[end - 2] != '/')))
            end--;
        /* and so does a field delimiter inside the token: the rest is read
           as any token's ("./a.out(main+0x1e)", glibc's backtrace_symbols()) */
        path_to = s[0] == '.' ? 1 : end;
        while (path_to < end && !is_path_delimiter(s[path_to]))
            path_to++;
        if (path_to >= end) {
            o = put_wildcard(o);
            memcpy(o, s + end, n - end);
            return (size_t)(o - out) + (n - end);
        }
    }
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    int last_wild = 0; /* the output ends with a "<*>" (merge adjacent ones) */
    int joins = 0;     /* a ':', '/', '#', ',' or '@' follows a "<*>" (see merge_joined) */
    size_t angles = 0; /* '<' of this token not yet closed */
    int slash_seen = 0; /* a '/' was read (is_relative_path asked) */
    /* the last plain atom: out[scheme..scheme_end), ending before s[scheme_to] */
    char *scheme = NULL, *scheme_end = NULL;
    size_t scheme_to = 0;
    /* s[..base64_tried) is no base64 text's start; base64_span needs 16 bytes
       with a '+' or '/', which most tokens fail at once */
    size_t base64_tried = n;
    if (n >= 16 && !FUSE_RULE_OFF(FUSE_RULE_BASE64) &&
        (memchr(s, '/', n) || memchr(s, '+', n) || (n >= 21 && closes_with_padding(s, n))))
        base64_tried = 0;
    if (rel || path_to) {
        o = put_wildcard(o);
        last_wild = 1;
        i = rel ? rel : path_to; /* the '/' before the file, or the delimiter after the path */
        base64_tried = n;
    }
    while (i < n) {
        /*
         * A path: '/' opening a piece of the token, up to the next field
         * delimiter, dots included ("/10.0.0.1", "'/udev/vcs2'",
         * "/tmp/part-0001.").  Both corrected ground truths write a
         * path-like string as one "<*>", whatever its depth.  A '?' in it
         * opens its query, whose '=' are the query's ("/page1.html?q=1",
         * a web server's request line, as the full lists write OpenStack's
         * "GET <*> <*>").
         */
        if (!FUSE_RULE_OFF(FUSE_RULE_PATHS) && s[i] == '/' &&
            (i == 0 || is_path_delimiter(s[i - 1])) && i + 1 < n &&
            s[i + 1] != '/' && s[i + 1] != '>' && !(s[i + 1] == '*' && i + 2 == n) &&
            !is_path_delimiter(s[i + 1])) {
            /* (not "/>", which closes an empty XML element: "<collection />"; nor
               a lone '/' and '*', which opens a C comment, as iptables prints a
               rule's comment) */
            size_t e = i + 1;
            while (e < n && !is_path_delimiter(s[e]))
                e++;
            /* a quote escaped closes the string the path is in ('(\"/a/b\")',
               a C or JSON string printed inside another): its '\\' is not the path's */
            if (e < n && s[e] == '"' && s[e - 1] == '\\' && e - 1 > i + 1)
                e--;
            /* a directory named "key=value" ("/cache/icecc/target=x86_64/
               __client/usr/bin/as", a table's partition "dt=2026-12-07/"):
               the path's, when a '/' follows it in the path */
            while (e < n && s[e] == '=' && !memchr(s + i, '?', e - i)) {
                size_t f = e + 1;
                while (f < n && !is_path_delimiter(s[f]) && s[f] != '/')
                    f++;
                if (f == e + 1 || f >= n || s[f] != '/')
                    break;
                e = f;
                while (e < n && !is_path_delimiter(s[e]))
                    e++;
            }
            if (e < n && s[e] == '=' && memchr(s + i, '?', e - i))
                while (e < n && (!is_path_delimiter(s[e]) || s[e] == '='))
                    e++; /* the query's '=' */
            else if (e + 1 < n && s[e] == ':' &&
                     ((s[e + 1] >= '0' && s[e + 1] <= '9') || is_wild_at(s, e + 1, n)))
                e = source_path_dir(s, i, e); /* "<*>/bug.c:<*>": the file stays */
            o = put_wildcard_once(o, &last_wild);
            i = e;
            continue;
        }
        size_t address = (is_hex_byte(s[i]) || s[i] == ':') ? hex_groups(s, i, n) : 0;
        if (address) {
            o = put_wildcard_once(o, &last_wild);
            i += address;
            continue;
        }
        /*
         * "scheme://anything": a URL is one value, its scheme included
         * ("hdfs://10.0.0.1:9000/x" -> "<*>"), as the full-size ground truths
         * write every one of them, a constant address too ("see: <*>"); the
         * 2k ones kept the scheme ("hdfs://<*>"), as fuse does without the
         * rule.  The scheme is the plain atom right before "://" (RFC 3986:
         * a letter, then letters, digits, '+', '-', '.').
         */
        if (s[i] == ':' && i > 0 && is_alnum_byte(s[i - 1]) && i + 3 < n && s[i + 1] == '/' &&
            s[i + 2] == '/' &&
            (s[i + 3] != '/' || (i + 4 < n && s[i + 4] != '/'))) { /* "file:///x": no host */
            size_t e = i + 3;
            /* (and at a closing quotation mark in UTF-8, ’ or ”: wget's
               "Enqueuing ‘http://127.0.0.1:28480/’ with ‘UTF-8’") */
            while (e < n && s[e] != ']' && s[e] != ')' && s[e] != '}' && s[e] != '"' &&
                   s[e] != '\'' &&
                   !(s[e] == '\xe2' && e + 2 < n && s[e + 1] == '\x80' &&
                     (s[e + 2] == '\x99' || s[e + 2] == '\x9d')))
                e++;
            if (e < n && e > i + 3 && s[e - 1] == '\\')
                e--; /* "\"http://x/\"": the quote's escape is not the URL's */
            while (e > i + 3 && (s[e - 1] == ',' || s[e - 1] == '.' || s[e - 1] == ';' ||
                                 s[e - 1] == ':'))
                e--;
            if (!FUSE_RULE_OFF(FUSE_RULE_URLS) && scheme_end == o && scheme_to == i &&
                is_scheme(scheme, (size_t)(o - scheme))) {
                o = scheme; /* the scheme goes into the value */
                if (!ends_with_wildcard(out, o))
                    o = put_wildcard(o);
            } else {
                memcpy(o, "://", 3);
                o = put_wildcard(o + 3);
            }
            last_wild = 1;
            i = e;
            continue;
        }
        /*
         * "<1" and ">=5": a number printed with a bound is still a number;
         * the sign is part of the value ("lifetime <1 sec" is a lifetime).
         */
        size_t sign = i == 0 ? bound_sign(s, n) : 0;
        /* "(nil)": glibc's printf prints a null pointer so for "%p",
           parentheses and all, where other lines print "0x7f5a88b3f040"
           (Kamailio's "data (nil)" and "start=(nil)" beside "start=0x7f...";
           rule value-words) */
        if (s[i] == '(' && i + 5 <= n && memcmp(s + i, "(nil)", 5) == 0 &&
            (i + 5 == n || !is_alnum_byte(s[i + 5])) && !FUSE_RULE_OFF(FUSE_RULE_VALUE_WORDS)) {
            o = put_wildcard_once(o, &last_wild);
            i += 5;
            continue;
        }
        if (byte_class[u[i]] == CLS_BREAK && u[i] != '&' && !is_wild_at(s, i, n) && !sign) {
            /* (an '&' opens an atom, "&Reply-Message", ">&2", as any byte
               not a break does: it breaks one only at query_join()) */
            /* a relative path ("data1/docs/f1.bin"), read at the token's
               first '/' (most tokens have none): one value, the punctuation
               closing the token outside it */
            if (s[i] == '/' && !slash_seen) {
                slash_seen = 1;
                if (is_relative_path(s, n)) {
                    const size_t end = before_token_closers(s, n);
                    o = put_wildcard(out);
                    memcpy(o, s + end, n - end);
                    return (size_t)(o - out) + (n - end);
                }
            }
            /*
             * A '>' right after a value, closing a '<' opened in an earlier
             * token ("<memory:0, vCores:-27>", "<NSMutableURLRequest:
             * 0x1005110b0> {"), is written inside the value: "vCores:<*>",
             * as the full-size and the Loghub-2.0 2k ground truths write it
             * (no template of theirs holds "<*>>").  One opened in this
             * token closes its own bracket ("[<c0123456>]", "msgid=<42>").
             */
            if (s[i] == '>' && last_wild && !angles && !FUSE_RULE_OFF(FUSE_RULE_CLOSERS)) {
                i++;
                continue;
            }
            /* "err=<nil>", "java.compiler=<NA>": a key's value printed as a
               placeholder in angle brackets is its value, "err=<*>" */
            const size_t placeholder = s[i] == '<'                    ? bracketed_key_value(s, i, n)
                                       : (s[i] == '"' || s[i] == '\'') ? quoted_key_value(s, i, n)
                                                                        : 0;
            if (placeholder) {
                if (s[i] == '<') { /* the brackets are the value's: err=<*> */
                    o = put_wildcard(o);
                    last_wild = 1;
                } else if (o - out >= 6 && o[-1] == ',' && o[-2] == s[i] && o[-6] == s[i] &&
                           ends_with_wildcard(out, o - 2)) {
                    /* the next string of an array of values: one value,
                       '["<*>"]' whatever the array's length, as a list
                       closing a line is one "<*>" */
                    o--;
                } else { /* the quotes stay: dn="<*>" */
                    o = put_quoted_wildcard(o, s[i]);
                    last_wild = 0;
                }
                i += placeholder;
                continue;
            }
            /* a terminal's control sequence, ESC '[' parameters and a final
               byte ("\x1b[33mPress", a colour werkzeug and others write
               to their logs): formatting, and the text after it read on its
               own ("[<*>" had taken "33mPress") */
            size_t params = 0;
            const size_t control = s[i] == '\x1b' ? control_sequence(s, i, n, &params) : 0;
            if (control) {
                /* its parameters, a colour the program chose by the value it
                   wraps (morgan's status codes: green, yellow, red), are a
                   value; the rest is copied */
                memcpy(o, s + i, 2);
                o += 2;
                if (params > 2)
                    o = put_wildcard(o);
                memcpy(o, s + i + params, control - params);
                o += control - params;
                i += control;
                last_wild = 0;
                continue;
            }
            /* rsyslog's escape of a control character glued to the text
               before it, "#012" for a newline inside a message ("last):#012",
               "foo()#012NameError:"): the message's own bytes, and the word
               after it a word, not a value's digits (see glued_escape) */
            const int escape = s[i] == '#' ? glued_escape(s, i, n) : 0;
            if (escape && by_value != NULL)
                *by_value = 1;
            if (escape == 2) {
                memcpy(o, s + i, 4);
                o += 4;
                i += 4;
                last_wild = 0;
                continue;
            }
            angles += s[i] == '<';
            angles -= s[i] == '>' && angles > 0;
            joins |= last_wild && (s[i] == ':' || s[i] == '/' || s[i] == '#' || s[i] == ',' ||
                                   s[i] == '@');
            *o++ = s[i];
            last_wild = 0;
            /* a key's value in escaped quotes, a logfmt line inside a JSON
               string or a C string ('info=\"Office\"'): the value is the
               text inside them, "info=\"<*>\"" */
            size_t escaped;
            if (s[i] == '=' && i + 3 < n && s[i + 1] == '\\' && s[i + 2] == '"' &&
                (escaped = escaped_key_value(s, i + 1, n)) != 0 && is_key_sign(s, i, n)) {
                memcpy(o, "\\\"", 2);
                o = put_wildcard(o + 2);
                memcpy(o, "\\\"", 2);
                o += 2;
                last_wild = 0;
                i += 1 + escaped;
                continue;
            }
            /* "a=,b=1", "(opts=)": a key printed with an empty value (at the
               token's end, the next token decides: is_empty_key) */
            if (i + 1 < n && is_key_sign(s, i, n) &&
                (s[i + 1] == ',' || s[i + 1] == ';' || s[i + 1] == ')' || s[i + 1] == ']' ||
                 s[i + 1] == '}')) {
                o = put_wildcard(o);
                last_wild = 1;
                i++;
                continue;
            }
            /*
             * "()" and "[]" are a field printed empty: still a variable's
             * place; but right after a name they are code, part of the
             * message: a call ("init()"), an array type or operator
             * ("String[]", "delete[]").
             */
            if (i + 1 < n &&
                ((s[i] == '(' && s[i + 1] == ')') || (s[i] == '[' && s[i + 1] == ']')) &&
                !(i > 0 && (is_alnum_byte(s[i - 1]) || s[i - 1] == '_'))) {
                o = put_wildcard(o);
                last_wild = 1;
            }
            i++;
            continue;
        }
        /* a protocol reply's three-digit code before '-', the mark of a reply
           of several lines (FTP's "226-File successfully transferred", SMTP's
           "250-PIPELINING"): the code is the value, the text after the '-'
           the message's words ("226-File" had been one value, "File" in it) */
        /* (the digits' kind alone decides, never which digits: lines of one
           shape mask alike, fuse_shape.h) */
        if (i == 0 && n > 5 && s[3] == '-' && (is_letter(s[4]) || s[4] == '"') &&
            s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9' && s[2] >= '0' &&
            s[2] <= '9') {
            o = put_wildcard(o);
            *o++ = '-';
            i = 4;
            last_wild = 0;
            continue;
        }
        /* an LDAP distinguished name, "uid=alice,ou=people,dc=example,dc=com" */
        if (i + 8 < n && (s[i + 1] == '=' || s[i + 2] == '=' || s[i + 3] == '=') &&
            is_letter(s[i]) && (i == 0 || !is_alnum_byte(s[i - 1])) &&
            memchr(s + i, ',', n - i) != NULL) { /* (its first type, 1 to 3 letters) */
            const size_t dn = dn_span(s, i, n);
            if (dn) {
                o = put_wildcard_once(o, &last_wild);
                i += dn;
                continue;
            }
        }
        /* base64 text, from a piece's first byte; a span that failed is not tried again */
        if (i >= base64_tried && is_alnum_byte(s[i])) {
            const size_t b64 = base64_span(s, i, n, &base64_tried);
            if (b64) {
                o = put_wildcard_once(o, &last_wild);
                i += b64;
                continue;
            }
        }
        char *atom = o;
        const size_t atom_from = i;
        unsigned variable = 0;
        memcpy(o, s, sign);
        o += sign;
        i += sign;
        for (;;) {
            const unsigned char *q = u + i, *end = u + n;
            while (q < end) {
                uint64_t word;
                if (end - q >= 8 && simple_word(q, &word, &variable)) {
                    memcpy(o, &word, 8); /* MASKED_MAX leaves room */
                    o += 8;
                    q += 8;
                    continue;
                }
                const unsigned char *stop = end - q > 8 ? q + 8 : end;
                while (q < stop) {
                    unsigned c = *q, cls = byte_class[c];
                    if (cls == CLS_BREAK)
                        goto atom_end;
                    variable |= cls;
                    *o++ = (char)c;
                    q++;
                }
            }
        atom_end:
            i = (size_t)(q - u);
            if (i < n && s[i] == '&' && !query_join(s, atom_from, i, n)) {
                *o++ = '&'; /* "AT&T", "&amp;": the atom's own */
                i++;
                continue;
            }
            if (i + 1 < n && s[i] == '\'' && i > atom_from && is_letter(s[i - 1]) &&
                is_letter(s[i + 1])) {
                /* "Can't", "O'Brien": an apostrophe inside a word is the word's
                   (sendmail's "stat=Can't create output" was "stat=<*>'t ...") */
                *o++ = '\'';
                i++;
                continue;
            }
            if (i < n && s[i] == '>' && o - atom > 1 && o[-1] == '-') {
                o--; /* "24->0(21)": the '-' of an arrow is not the number's */
                i--;
                break;
            }
            if (i < n && (s[i] == '"' || s[i] == '\'') && o - atom > 1 && o[-1] == '\\') {
                /* "\"10.0.0.1:80\"": a quote escaped inside a quoted string
                   (JSON's "msg"), not a backslash closing the value */
                o--;
                i--;
                break;
            }
            if (i < n && is_wild_at(s, i, n)) {
                variable = 1;
                o = put_wildcard(o);
                i += 3;
                continue;
            }
            break;
        }
        size_t atom_len = (size_t)(o - atom);
        if (!variable && atom_len == 3 && is_date_month(s, atom_from, i, n))
            variable = 1;
        /*
         * A dotted name right before ":port" is a host ("proxy.example.org:8080"):
         * an address like the numeric one it stands for, one "<*>" with its
         * port (merge_joined).  Without the port a dotted name may as well be
         * a class or a file ("java.io.IOException", "chrome.exe"), left to
         * the sibling groups, unless it is spelled as a full DNS name
         * (is_dns_name).
         */
        if (!variable && ((i + 1 < n && s[i] == ':' && is_port_at(s, i + 1, n) &&
                           is_host_name(atom, atom_len) &&
                           !is_source_file(atom, atom_len, s, i, n)) ||
                          is_dns_name(atom, atom_len) ||
                          (i < n && s[i] == '@' && is_object_identity(atom, atom_len, s, i, n))))
            variable = 1;
        /* "root=LABEL=/": a value word naming a key is the key, and one
           joined to a name by '/' a module's or a directory's name
           ("admin/admin_handle_request", icecast's); a key's value
           is a value, but for a URL's scheme and a source location's file and
           directories ("caller=main.go:585", logfmt's: "caller=main.go:<*>") */
        if (!variable &&
            !(is_value_word(atom, atom_len) && !(i < n && is_key_sign(s, i, n)) &&
              !(i + 1 < n && s[i] == '/' && is_letter(s[i + 1])) &&
              /* (a JSON member's name, '"root":', is the key too) */
              !(i + 1 < n && (s[i] == '"' || s[i] == '\'') && s[i + 1] == ':' &&
                atom_from > 0 && s[atom_from - 1] == s[i])) &&
            !is_hex_word(atom, atom_len) &&
            !(((atom_from > 0 && is_key_sign(s, atom_from - 1, n)) ||
               is_bracketed_key_value(s, atom_from, i, n)) &&
              !(i + 2 < n && s[i] == ':' && s[i + 1] == '/' && s[i + 2] == '/') &&
              !names_source(s, atom_from, i, n) && !is_code_value(s, atom_from, i, n))) {
            last_wild = 0;
            scheme = atom; /* a word as written: maybe the scheme of a URL */
            scheme_end = o;
            scheme_to = i;
            continue;
        }
        /* dots ending the atom are sentence punctuation, kept outside the variable */
        size_t dots = 0;
        while (o - dots > atom + 1 && o[-1 - (ptrdiff_t)dots] == '.')
            dots++;
        if (variable && !memchr(atom, '*', atom_len) &&
            ((is_digit_name(atom, atom_len - dots) &&
              !(atom_from > 0 && is_key_sign(s, atom_from - 1, n)) &&
              !is_bracketed_key_value(s, atom_from, i, n) &&
              !(i < n && s[i] == '@' && is_object_identity(atom, atom_len, s, i, n))) ||
             (i < n && s[i] == '(' && (is_dotted_code_call(atom, atom_len) ||
                                       calls_at_source(atom, atom_len, s, i, n))) ||
             is_scoped_name(s, atom_from, i, n) || names_source(s, atom_from, i, n) ||
             (i + 1 == n && (s[i] == ':' || s[i] == ']') && is_message_id(s, n, atom_from, i)) ||
             /* a long option's name before its '=' ("--pg1-path=/x",
                "--repo1-retention-full=2"): the program's word, digits and all */
             (i < n && s[i] == '=' && atom_from == 0 && atom_len > 3 && atom[0] == '-' &&
              atom[1] == '-' && is_letter(atom[2])))) {
            last_wild = 0;
            continue;
        }
        /*
         * A protocol or product and its dotted version ("HTTP/1.1", "SIP/2.0",
         * "Mozilla/5.0") is one value: the request lines of every ground truth
         * write it inside a "<*>" (OpenStack's full one: "GET <*> <*>").  A
         * number without a dot after a name is a model or port number, and
         * the name stays ("PS/<*>", "PRO/<*>" in Linux and Thunderbird).
         */
        size_t keep = 0;
        if (!FUSE_RULE_OFF(FUSE_RULE_VERSIONS) && scheme && atom_from > 0 &&
            s[atom_from - 1] == '/' && scheme_to + 1 == atom_from && scheme_end + 1 == atom &&
            is_letters(scheme, (size_t)(scheme_end - scheme)) &&
            is_dotted_number(atom, atom_len - dots)) {
            atom = scheme; /* the value starts at the name */
            last_wild = ends_with_wildcard(out, atom);
        } else {
            keep = source_line_prefix(atom, atom_len - dots);
            if (keep == 0)
                keep = name_prefix(atom, atom_len - dots);
            if (keep == 0)
                keep = leader_prefix(atom, atom_len - dots);
            if (keep == 0 && memchr(atom, '+', atom_len))
                keep = symbol_prefix(atom, atom_len - dots);
        }
        o = atom + keep;
        if (!last_wild || keep)
            o = put_wildcard(o);
        last_wild = 1;
        /* a key's number and the name it stands for in parentheses, one value:
           "uid=1000(alice)", "groups=1000(alice),27(sudo)" (id(1), audit
           records), CUPS' "p=0x55f27369e4c0(office1)" */
        if (!keep && i + 2 < n && s[i] == '(' && atom_from > 0 &&
            (is_key_sign(s, atom_from - 1, n) ||
             (s[atom_from - 1] == ',' && atom_from > 1 && s[atom_from - 2] == ')')))
            i += named_number_annotation(s, i, n);
        /* a key's value that names joined by '/' ("name=crowdsecurity/ssh-bf",
           a scenario's, a package's, a route's): the names after it are the
           value's too */
        if (i + 1 < n && s[i] == '/' && !dots && atom_from > 0 && is_key_sign(s, atom_from - 1, n) &&
            is_alnum_byte(s[i + 1]))
            while (i < n && (s[i] == '/' || byte_class[u[i]] != CLS_BREAK))
                i++;
        if (dots) {
            memset(o, '.', dots);
            o += dots;
            last_wild = 0;
        }
    }
    if (joins)
        o = out + merge_joined(out, (size_t)(o - out));
    return (size_t)(o - out);
}

/* mask_token_reading() for a caller that keeps no line cache entry. */
FUSE_INLINE size_t mask_token(const char *s, size_t n, char *out)
{
    return mask_token_reading(s, n, out, NULL);
}

/*
 * Nonzero when token i (not empty) may be a key's value that its neighbours
 * decide (mask_in_context): it ends with '=', or a lone '=' is before it,
 * or a JSON member's quoted name and ':' (after_member_name; `quoted`: the
 * line holds a '"'), or a flag's word after a "key:" (flag_key_value); or a
 * "null" that the words beside it may keep a word (null_is_text).
 * The first test of both, inline: nearly every token fails it.
 */
/* Token i follows a token ending with '":' or "':" (a member's name, maybe). */
FUSE_INLINE int follows_quoted_colon(const logtk_slice *tok, size_t i)
{
    return i > 0 && tok[i - 1].len >= 4 && tok[i - 1].ptr[tok[i - 1].len - 1] == ':' &&
           (tok[i - 1].ptr[tok[i - 1].len - 2] == '"' || tok[i - 1].ptr[tok[i - 1].len - 2] == '\'');
}

FUSE_INLINE int key_context(const logtk_slice *tok, size_t i, size_t n, int quoted)
{
    return tok[i].ptr[tok[i].len - 1] == '=' ||
           (tok[i].len - 4 <= 2 && (tok[i].ptr[0] | 0x20) == 'n' && (tok[i].ptr[1] | 0x20) == 'u' &&
            ((i + 1 < n && tok[i + 1].len > 0 && is_letter(tok[i + 1].ptr[0])) ||
             (i > 0 && tok[i - 1].len - 2 <= 1))) || /* (null_is_text) */
           (i >= 2 && tok[i - 1].len == 1 && tok[i - 1].ptr[0] == '=') ||
           (quoted && follows_quoted_colon(tok, i)) ||
           (tok[i].len <= 4 && ((tok[i].ptr[0] | 0x20) == 'n' || (tok[i].ptr[0] | 0x20) == 'o' ||
                                (tok[i].ptr[0] | 0x20) == 'y') &&
            i > 0 && tok[i - 1].len > 1 && tok[i - 1].ptr[tok[i - 1].len - 1] == ':'); /* (flag_key_value) */
}

/*
 * Nonzero when token i is the name of a JSON member printed with a blank
 * after its ':' ("{\"user\":" or "\"user\":" in {"user": "bob", "n": 3},
 * Python's json.dumps): is_member_sign at its end, and a name opening the
 * token follows a ',' ending the token before it ("Unknown option \"x\":
 * ignored" is prose).
 */
static int is_spaced_member_name(const logtk_slice *tok, size_t i)
{
    const logtk_slice *k = &tok[i];
    if (k->len < 4 || k->ptr[k->len - 1] != ':' || !is_member_sign(k->ptr, k->len - 1))
        return 0;
    return member_name_at(k->ptr, k->len - 1) > 0 ||
           (i > 0 && tok[i - 1].len > 0 && tok[i - 1].ptr[tok[i - 1].len - 1] == ',');
}

/*
 * Nonzero when token i is the value of a JSON member whose name is token
 * i - 1 (is_spaced_member_name).  The first test inline: nearly every token
 * fails it.
 */
FUSE_INLINE int after_member_name(const logtk_slice *tok, size_t i)
{
    return follows_quoted_colon(tok, i) && is_spaced_member_name(tok, i - 1);
}

/*
 * The length of a JSON member's value that token i holds whole after its
 * name (after_member_name): a quoted string with its quotes ("\"bob\","),
 * or a word up to the punctuation closing it ("true,", "null}"); 0 when the
 * token holds more (a nested object, "{\"a\":"), or a string it does not
 * close (keyed_span joins it).
 */
static size_t member_value_length(const char *s, size_t n)
{
    size_t end;
    if (s[0] == '"' || s[0] == '\'') {
        end = closing_quote(s, 1, n, s[0]);
        if (end == n)
            return 0;
        end++;
    } else {
        for (end = 0; end < n && (is_key_byte(s[end]) || s[end] == '+'); end++)
            ;
        if (end == 0)
            return 0;
    }
    for (size_t k = end; k < n; k++)
        if (!memchr(",}]", s[k], 3))
            return 0;
    return end;
}

/*
 * Rule null-words: "null" (in any case) right before a word of the message,
 * or right after "not" or "be" (with ',', ';', '.' or ')' closing it), is a
 * word of the message too: "kernel NULL pointer dereference", "datas
 * is null or empty", "Got null now.", "NULL shield_window" (the full-size
 * ground truths keep every one of these; value-words makes "null" a value
 * where a value stands: "config null", "(null)", "ws=null,", "(NULL key)").
 * The word after it opens with a letter and holds letters, digits, '_'
 * and '-', with one mark of a sentence's punctuation at its end, and is no
 * preposition: "null" before "for", "from", "to" is a noun, a value ("got
 * null from the server").  After a negation or "be", "null" is the
 * predicate a developer wrote, never a value printed: SQL's "NOT NULL," and
 * "IS NOT NULL)", Java's "must not be null" (Django's schema statements kept
 * "varchar(255) NOT <*>,").  Nonzero when token i is such a "null".  (A token
 * is a variable because it varies: a slot of such a "null" that prints other
 * words becomes one.)
 */
static int null_is_text(const logtk_slice *tok, size_t i, size_t n)
{
    static const char *const null_word[] = {"null"};
    static const char *const predicates[] = {"not", "be"};
    if (FUSE_RULE_OFF(FUSE_RULE_NULL_WORDS) || FUSE_RULE_OFF(FUSE_RULE_VALUE_WORDS))
        return 0;
    if (i > 0 && tok[i].len >= 4 && is_word_of(tok[i].ptr, 4, null_word, 1) &&
        is_word_of(tok[i - 1].ptr, tok[i - 1].len, predicates, 2)) {
        size_t k = 4;
        while (k < tok[i].len && memchr(",;.)", tok[i].ptr[k], 4))
            k++;
        if (k == tok[i].len)
            return 1;
    }
    if (i + 1 >= n || !is_word_of(tok[i].ptr, tok[i].len, null_word, 1))
        return 0;
    /* the next token's bytes up to a blank: a field joined there ("Dec  8
       11:22:33", feed_tokens' joined_field) reads as its first word does */
    const logtk_slice *w = &tok[i + 1];
    size_t len = 0;
    while (len < w->len && w->ptr[len] != ' ' && w->ptr[len] != '\t')
        len++;
    if (len > 1 && memchr(".,;:!?", w->ptr[len - 1], 6))
        len--;
    if (len == 0 || !is_letter(w->ptr[0]))
        return 0;
    for (size_t k = 1; k < len; k++)
        if (!is_alnum_byte(w->ptr[k]) && w->ptr[k] != '_' && w->ptr[k] != '-')
            return 0;
    /* a preposition after it makes it a noun, a value: "config null for user" */
    static const char *const prepositions[] = {"for", "from", "to", "in", "into", "at", "on",
                                               "of", "with", "by", "as"};
    return !is_word_of(w->ptr, len, prepositions, sizeof prepositions / sizeof prepositions[0]);
}

/*
 * Writes the masked form of token i to out (room for MASKED_MAX + 8 bytes)
 * when its neighbours decide it, a key's value (spaced_key_value: "type =
 * pid," -> "<*>,"; is_empty_key: "logname=" -> "logname=<*>"), and returns
 * its length; 0 when the token alone decides (mask_token, the memo, the
 * quick hash).  Only for a token in key_context().
 */
static size_t mask_in_context(const logtk_slice *tok, size_t i, size_t n, char *out)
{
    assert(key_context(tok, i, n, 1));
    size_t word = spaced_key_value(tok, i, n);
    if (word) {
        char *o = put_wildcard(out);
        memcpy(o, tok[i].ptr + word, tok[i].len - word);
        return LTK_WILDCARD_LEN + (tok[i].len - word);
    }
    if (is_empty_key(tok, i, n)) {
        size_t len = mask_token(tok[i].ptr, tok[i].len, out);
        return (size_t)(put_wildcard(out + len) - out);
    }
    if ((word = flag_key_value(tok, i, n)) != 0) {
        char *o = put_wildcard(out);
        memcpy(o, tok[i].ptr + word, tok[i].len - word);
        return LTK_WILDCARD_LEN + (tok[i].len - word);
    }
    if (after_member_name(tok, i) && (word = member_value_length(tok[i].ptr, tok[i].len)) != 0) {
        const char q = tok[i].ptr[0];
        char *o = q == '"' || q == '\'' ? put_quoted_wildcard(out, q) /* as a key's: "<*>" */
                                        : put_wildcard(out);
        memcpy(o, tok[i].ptr + word, tok[i].len - word);
        return (size_t)(o - out) + (tok[i].len - word);
    }
    if (null_is_text(tok, i, n)) {
        memcpy(out, tok[i].ptr, tok[i].len); /* the word itself */
        return tok[i].len;
    }
    return 0;
}

/*
 * The masked form of a JSON member's string value joined from its tokens
 * after its name (keyed_span, FORM_MEMBER): "<*>" in its quotes, then the
 * rest of its last token masked as a token ("\"carol dee\"," ->
 * "\"<*>\",").  out has room for MASKED_MAX(n).
 */
static size_t mask_member_value(const char *s, size_t n, char *out)
{
    assert(n > 1 && (s[0] == '"' || s[0] == '\''));
    const size_t close = closing_quote(s, 1, n, s[0]);
    assert(close < n); /* (keyed_span or repr_string_span found it) */
    char *o = put_quoted_wildcard(out, s[0]);
    return (size_t)(o - out) + mask_token(s + close + 1, n - close - 1, o);
}

/*
 * Nonzero when s[0..n) holds one of '0'..'9' (a masked form that kept a
 * digit); s is the masking buffer, readable 8 bytes past n.
 */
static int holds_digit(const char *s, size_t n)
{
#if FUSE_SWAR
    uint64_t w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, s + i, 8);
        if (ltk_digit_bytes(w))
            return 1;
    }
    if (i < n) {
        memcpy(&w, s + i, 8);
        return ltk_digit_bytes(w & (~0ULL >> (8 * (8 - (n - i))))) != 0;
    }
    return 0;
#else
    for (size_t i = 0; i < n; i++)
        if (byte_class[(unsigned char)s[i]] == CLS_DIGIT)
            return 1;
    return 0;
#endif
}

/*
 * A token's masked form as found by quick_token_hash(), so that a line
 * that misses the table is written out without masking those tokens again.
 */
enum {
    FORM_MASK,    /* only mask_token() knows */
    FORM_SELF,    /* the token itself */
    FORM_STASHED, /* masked while hashing: in st->stash (stash_off, stash_len) */
    FORM_STAMP,   /* a timestamp joined from its tokens (learn_sequence): mask_timestamp() */
    FORM_QUOTED,  /* a quoted field joined from its tokens (learn_sequence): mask_quoted() */
    FORM_KEYED,   /* a key's quoted value joined from its tokens (keyed_span): mask_token() */
    FORM_MEMBER,  /* a JSON member's value so joined, after its name: mask_member_value() */
    FORM_ARRAY,   /* a JSON array of values so joined, after a name (array_span): mask_array() */
    FORM_SQL,     /* an SQL statement's string literals, joined (sql_field): mask_sql() */
    FORM_BRACKET, /* a key's value in brackets holding blanks (bracket_value_span): mask_bracket_value() */
    FORM_WILD     /* FORM_WILD + d: "<*>" and d dots */
};

/*
 * The hash of the masked form of a token made only of simple bytes (see
 * simple_bytes), straight from its bytes: no copy, no per-byte loop.  Such a
 * token is one atom, so its masked form is the token itself (no digit; a
 * month or weekday name is "<*>") or "<*>" plus its trailing dots (a digit).
 * `limit` ends the readable memory after s: a token shorter than 8 bytes is
 * loaded as a whole word only when that stays below it.  Returns 0 when the
 * token needs mask_token() (other bytes, too long, too close to the end);
 * otherwise 1 with *hash equal to hash_bytes() of the masked form, and that
 * form in *form.
 */
static int quick_token_hash(const char *s, size_t n, const char *limit,
                            const uint64_t *wild_dots, uint64_t *hash, uint8_t *form,
                            int *kept_digit)
{
#if FUSE_SWAR
    const uint64_t high = 0x8080808080808080ULL;
    if (n == 0 || n > 64)
        return 0;
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w, digits, any_digit = 0;
    size_t i = 0;
    for (; n - i >= 8; i += 8) {
        memcpy(&w, s + i, 8);
        if (simple_bytes(w, &digits) != high)
            return 0;
        any_digit |= digits;
        h = hash_round(h, w);
    }
    if (i < n) {
        size_t rest = n - i;
        if (limit - (s + i) >= 8) {
            memcpy(&w, s + i, 8);
            w &= ~0ULL >> (8 * (8 - rest));
        } else if (n >= 8) {
            memcpy(&w, s + n - 8, 8); /* overlaps bytes already checked */
            w >>= 8 * (8 - rest);
        } else {
            /* a short token closing the line: its bytes one by one */
            w = 0;
            for (size_t k = 0; k < rest; k++)
                w |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
        }
        uint64_t keep = high >> (8 * (8 - rest));
        if ((simple_bytes(w, &digits) & keep) != keep)
            return 0;
        any_digit |= digits & keep;
        h = hash_round(h, w);
    }
    if (!any_digit) {
        if (is_dns_name(s, n))
            return 0; /* a host name: "<*>" and its sentence dots, mask_token() */
        int wild = (n == 3 && ltk_fuse_is_calendar_word(s, n)) ||
                   ((n == 4 || n == 5) && is_value_word(s, n)) || /* its own first test, inline */
                   is_hex_word(s, n);
        *hash = wild ? wild_dots[0] : h;
        *form = wild ? FORM_WILD : FORM_SELF;
        return 1;
    }
    if (n >= 17 && s[2] == '-')
        return 0; /* maybe a hardware address ("00-0d-60-e9-1f-25"): hex_groups() */
    if (n > 5 && s[3] == '-' && is_letter(s[4]))
        return 0; /* maybe a reply's code before its text ("226-File"): mask_token() */
    size_t dots = 0;
    while (dots + 1 < n && s[n - 1 - dots] == '.')
        dots++;
    if (dots >= FUSE_WILD_DOTS)
        return 0;
    /* the rules of mask_token() for a variable atom, without its copy */
    size_t lead = 0, keep = 0; /* letters opening the token; the kept prefix */
    while (lead < n && is_letter(s[lead]))
        lead++;
    if (lead && is_digit_name(s, n - dots)) {
        *hash = h; /* "jk2_init", "eth0": a name, itself */
        *form = FORM_SELF;
        *kept_digit = 1;
        return 1;
    }
    /* "response.c.422": a source file and its line (source_line_prefix);
       "core.12", "jetty-6.1.26": a kept name (name_prefix needs a '-' or '.' after letters) */
    if (lead && lead < n && s[lead] == '.')
        keep = source_line_prefix(s, n - dots);
    if (keep == 0 && lead && lead < n && (s[lead] == '-' || s[lead] == '.'))
        keep = name_prefix(s, n - dots);
    if (keep == 0) {
        /* "label..0": leader dots after letters, '_' and '-' (leader_prefix), whatever opens it */
        size_t run = lead;
        while (run < n && (is_letter(s[run]) || s[run] == '_' || s[run] == '-'))
            run++;
        if (run != 1 && run + 1 < n && s[run] == '.' && s[run + 1] == '.')
            keep = leader_prefix(s, n - dots);
    }
    if (keep) {
        /* "core.12." -> "core.<*>.", "jetty-6.1.26" -> "jetty-<*>": the name kept */
        char masked[64 + LTK_WILDCARD_LEN + FUSE_WILD_DOTS + 8]; /* slack for hash_padded */
        memcpy(masked, s, keep);
        memcpy(masked + keep, LTK_WILDCARD "...", LTK_WILDCARD_LEN + dots);
        *hash = hash_padded(masked, keep + LTK_WILDCARD_LEN + dots);
        *form = FORM_MASK;
        return 1;
    }
    *hash = wild_dots[dots];
    *form = (uint8_t)(FORM_WILD + dots);
    return 1;
#else
    (void)s, (void)n, (void)limit, (void)wild_dots, (void)hash, (void)form, (void)kept_digit;
    return 0;
#endif
}

/*
 * The memo slot of token s[0..n) (readable up to limit), with its bytes as
 * words in w[0..FUSE_MEMO_WORDS) and the same words with every digit read as
 * '0' in w[FUSE_MEMO_WORDS..): the slot is chosen by the latter, since a
 * token whose masked form keeps no digit masks like every token of its
 * shape (fuse_shape.c), whatever its digits; NULL when it is too long to be
 * kept.
 */
FUSE_INLINE ltk_fuse_memo *memo_slot(ltk_fuse_memo *memo, size_t slots, const char *s, size_t n,
                                 const char *limit, uint64_t *w)
{
    if (n == 0 || n > 8 * FUSE_MEMO_WORDS || memo == NULL)
        return NULL;
    uint64_t h = n;
    uint64_t *z = w + FUSE_MEMO_WORDS;
    size_t i = 0, k = 0;
    for (; n - i >= 8; i += 8, k++) {
        memcpy(&w[k], s + i, 8);
        z[k] = ltk_zero_digits(w[k]);
        h = hash_round(h, z[k]);
    }
    if (i < n) {
        size_t rest = n - i;
#if FUSE_SWAR
        if (limit - (s + i) >= 8) {
            memcpy(&w[k], s + i, 8);
            w[k] &= ~0ULL >> (8 * (8 - rest));
        } else
#endif
        {
            w[k] = 0;
            memcpy(&w[k], s + i, rest);
        }
        z[k] = ltk_zero_digits(w[k]);
        h = hash_round(h, z[k]);
        k++;
    }
    (void)limit;
    return &memo[ltk_mix64(h) & (slots - 1)];
}

/*
 * Makes the memo (first use) or one twice as large (empty: its slots
 * move).  Out of memory only leaves the memo as it was.
 */
static void memo_grow(ltk_fuse_state *st)
{
    size_t slots = st->memo ? 2 * st->memo_slots : FUSE_MEMO_MIN;
    /* the slots, then their bit set memo_filled, in one block; only the bit
       set is cleared: a slot is written when a token is kept there, so a
       fresh parser touches the slots its tokens use, not the whole memo */
    size_t words = (slots + 63) / 64;
    ltk_fuse_memo *m = malloc(slots * sizeof *m + words * sizeof *st->memo_filled);
    if (m == NULL)
        return;
    uint64_t *filled = (uint64_t *)(void *)(m + slots);
    memset(filled, 0, words * sizeof *filled);
    free(st->memo);
    st->memo = m;
    st->memo_filled = filled;
    st->memo_slots = slots;
    st->memo_evictions = 0;
    st->memo_hits = 0;
}

/*
 * Does slot m hold the token of n bytes whose words are w (memo_slot)?  A
 * masked form that kept a digit holds for the token's own bytes only, any
 * other for every token of its shape.
 */
FUSE_INLINE int memo_holds(const ltk_fuse_state *st, const ltk_fuse_memo *m, size_t n,
                           const uint64_t *w)
{
    /* one test, not two branches: the bit and the length (which is stale in
       a slot never kept: the bit decides then) */
    if (!(ltk_fuse_bit(st->memo_filled, (size_t)(m - st->memo)) & (m->len == n)))
        return 0;
    const uint64_t *key = m->kept_digit ? w : w + FUSE_MEMO_WORDS;
    for (size_t k = 0; k * 8 < n; k++)
        if (m->words[k] != key[k])
            return 0;
    return 1;
}

static void memo_keep(ltk_fuse_state *st, ltk_fuse_memo *m, size_t n, const uint64_t *w,
                      uint64_t masked, const char *form, size_t form_len, int kept_digit)
{
    size_t k = (size_t)(m - st->memo);
    ltk_fuse_set_bit(st->memo_filled, k);
    memset(m->words, 0, sizeof m->words);
    memcpy(m->words, kept_digit ? w : w + FUSE_MEMO_WORDS, (n + 7) / 8 * 8);
    m->len = (uint32_t)n;
    m->masked = masked;
    m->form_len = form_len <= sizeof m->form ? (uint16_t)form_len : 0;
    m->kept_digit = (uint16_t)kept_digit;
    memcpy(m->form, form, m->form_len);
}

/* closers[c]: the byte that closes c when c opens an enclosed value, else 0. */
static const char closers[256] = {
    ['('] = ')', ['['] = ']', ['{'] = '}', ['\''] = '\'', ['"'] = '"',
    ['`'] = '\'', /* `name': the quotes of GNU's and anacron's messages */
};

/* s[0..n) without the sentence punctuation (",", ".", ";", ":") that ends it, from `from` on. */
FUSE_INLINE size_t before_sentence_end(const char *s, size_t n, size_t from)
{
    size_t end = n;
    while (end > from && (s[end - 1] == ',' || s[end - 1] == '.' || s[end - 1] == ';' ||
                          s[end - 1] == ':'))
        end--;
    return end;
}

/* openers[c]: the byte that opens c when c closes an enclosed value, else 0. */
static const char openers[256] = {
    [')'] = '(', [']'] = '[', ['}'] = '{', ['\''] = '\'', ['"'] = '"',
    ['`'] = '`', /* `name`: Markdown's and the shell's */
};

/*
 * s[from..end) without the brackets closing it that no byte of it opened,
 * the closers of brackets earlier tokens opened: the ")" of '"alice")' in
 * '(unknown user: "alice")'.  Quotes close nothing here (a quote is its
 * own opener).
 */
static size_t before_outer_closers(const char *s, size_t from, size_t end)
{
    while (end > from + 1 && (s[end - 1] == ')' || s[end - 1] == ']' || s[end - 1] == '}') &&
           !memchr(s + from, openers[(unsigned char)s[end - 1]], end - 1 - from))
        end--;
    return end;
}

/*
 * The first member of s[0..n) whose name is a message key and whose value is
 * a string ('"msg":"'): the index of its name's opening quote, which must
 * follow a '{' or ','; SIZE_MAX when the first such name is none.  *closes:
 * the string closes in s.
 */
static size_t json_message_member(const char *s, size_t n, int *closes)
{
    for (const char *c = memchr(s, ':', n); c != NULL; c = memchr(c + 1, ':', (size_t)(s + n - c - 1))) {
        const size_t at = (size_t)(c - s);
        if (at < 5 || s[at - 1] != '"' || at + 1 >= n || s[at + 1] != '"' ||
            !is_message_key(s, at - 1))
            continue;
        const size_t name = member_name_at(s, at);
        if (name == SIZE_MAX || name == 0)
            return SIZE_MAX;
        *closes = closing_quote(s, at + 2, n, '"') < n;
        return name;
    }
    return SIZE_MAX;
}

/*
 * A token of a JSON line around its message's text (a token of several
 * names and values, since blanks only inside strings part a JSON line's
 * tokens): the one where the message opens, '{"level":"<*>","msg":"request'
 * (returns 1; *keep: the bytes from the message's quoted name on), or the
 * one where it closes, 'completed","status":<*>}' (returns 2; *keep: the
 * message's last word and its quote).  The variable form keeps those
 * ('<*>"msg":"request', 'completed"<*>'): lines of one message whose other
 * members differ are siblings there, and a slot of their names and values
 * becomes one "<*>" as any varying slot does, where a whole token of
 * several messages is never one (opens_message).  0 for any other token.
 */
static int json_message_form(const char *s, size_t n, size_t *keep)
{
    if (FUSE_RULE_OFF(FUSE_RULE_KEY_VALUES) || n < 8)
        return 0;
    const char *q = s[n - 1] == '}' || s[n - 1] == ']' ? memchr(s, '"', n) : NULL;
    const size_t first = q ? (size_t)(q - s) : 0;
    /* the close: message text, its quote, then a member's name ('","k":'),
       and the line's end (blanks inside a JSON line are inside strings) */
    if (first > 0 && first + 4 < n && s[first - 1] != '\\' && s[first + 1] == ',' &&
        s[first + 2] == '"' && !memchr(s, '{', first) && !memchr(s, ':', first)) {
        const char *colon = memchr(s + first + 3, ':', n - first - 3);
        if (colon && colon[-1] == '"' && is_member_sign(s, (size_t)(colon - s))) {
            *keep = first + 1;
            return 2;
        }
    }
    /* a word in escaped quotes closing the message, then the string's quote
       and a member or the line's end ('\"alice\"","detail":"Connection',
       PostgreSQL's jsonlog): returns 3, *keep the bytes from the word's
       closing '\"' on; the variable form '\"<*>\"","detail":"Connection'
       keeps the quotes and the members, as a quoted word's form does */
    if (s[0] == '\\' && s[1] == '"') {
        size_t c = 2;
        while (c < n && s[c] != '"' && s[c] != '\\' && s[c] != ' ')
            c++;
        if (c > 2 && c + 3 < n && s[c] == '\\' && s[c + 1] == '"' && s[c + 2] == '"' &&
            (s[c + 3] == '}' || (s[c + 3] == ',' && c + 4 < n && s[c + 4] == '"'))) {
            *keep = n - c;
            return 3;
        }
        return 0;
    }
    /* the opening: '"msg":"' whose string this token does not close */
    int closes;
    const size_t name = s[0] == '{' || s[0] == ',' ? json_message_member(s, n, &closes) : SIZE_MAX;
    if (name == SIZE_MAX || closes)
        return 0;
    *keep = n - name;
    return 1;
}

/*
 * The length of "name:" opening s[0..n) when a dotted name follows the ':'
 * and no other ':' comes after it ("action:android.intent.action.SCREEN_ON"):
 * a key and its value, as after '=', so the name stays in the slot's
 * variable form, "action:<*>" (rule colon-keys), as HealthApp's full ground
 * truth writes it.  Not a host and its port ("wpad:80", masked "wpad:<*>":
 * one value, rule joined), nor a value with more ':' ("AuthFail:sts:0"),
 * nor a name and a plain word, where the name is what varies (dpkg's
 * "gnupg:all" beside "tzdata:all", an image and its tag, a user and its
 * group: one value each).  With `masked`, the value may be "<*>": a
 * template's text read where a merged shard's words varied
 * (fuse_merge_places), which a masked port cannot be told from otherwise.
 * 0 when s is no such key and value.
 */
static size_t colon_key_length(const char *s, size_t n, int masked)
{
    const char *colon = memchr(s, ':', n); /* (most tokens hold none) */
    if (colon == NULL || colon == s)
        return 0;
    const size_t k = (size_t)(colon - s);
    if (k + 1 >= n || memchr(colon + 1, ':', n - k - 1) != NULL)
        return 0;
    for (size_t j = 0; j < k; j++)
        if (!is_letter(s[j]))
            return 0;
    if (is_letter(s[k + 1]))
        return memchr(colon + 1, '.', n - k - 1) != NULL ? k + 1 : 0;
    return masked && n == k + 1 + LTK_WILDCARD_LEN && is_wild_at(s, k + 1, n) ? k + 1 : 0;
}

/*
 * The variable form of a token: "key=<*>" for "key=value" (the key is part of
 * the template in every ground truth, only the value varies), "[<*>]" for
 * "[value]" and likewise "(<*>)", "{<*>}", "'<*>'" and "\"<*>\"": brackets
 * and quotes around a value are the message's punctuation, which the ground
 * truths keep ("PCI Interrupt Link [<*>]", "name (<*>) unknown"), else "<*>".
 * Returns the length of the kept prefix ("key=", "[", "key=[").
 */
/* json_message_form()'s first test, inline: nearly every token fails it. */
FUSE_INLINE int may_hold_json(const char *s, size_t n)
{
    return n >= 8 && (s[0] == '{' || s[0] == ',' || s[0] == '\\' || s[n - 1] == '}' ||
                      s[n - 1] == ']');
}

static size_t wildform_prefix(const char *s, size_t n)
{
    size_t message;
    const int form = may_hold_json(s, n) ? json_message_form(s, n, &message) : 0;
    if (form)
        return form == 2 ? message : form == 3 ? 2 : 0;
    const char *eq = memchr(s, '=', n);
    size_t keep = !eq || eq == s || is_wild_at(s, 0, n) ? 0 : (size_t)(eq - s) + 1;
    if (!eq && !FUSE_RULE_OFF(FUSE_RULE_COLON_KEYS))
        keep = colon_key_length(s, n, 0);
    if (keep == 0 && n > 4 && (s[n - 2] == '\'' || s[n - 2] == '"') && is_letter(s[0]) &&
        !FUSE_RULE_OFF(FUSE_RULE_BRACKETS)) {
        /* "attributeAdded('X',": a call's function stays when its argument
           is a quoted string that varies (not "LOCAL(0)", a value) */
        size_t k = 1;
        while (k < n && (is_alnum_byte(s[k]) || s[k] == '_'))
            k++;
        if (k >= 2 && k + 2 < n && s[k] == '(' && (s[k + 1] == '\'' || s[k + 1] == '"'))
            keep = k + 1;
    }
    if (keep == 0 && n > 6 && s[0] >= 'A' && s[0] <= 'Z' && s[n - 1] == ')' &&
        !FUSE_RULE_OFF(FUSE_RULE_BRACKETS)) {
        /* an event's name in capitals called with its argument, dnsmasq's
           "DHCPOFFER(br52)" beside "DHCPREQUEST(br52)": the name stays, the
           event the line reports, as a call's with a quoted argument does */
        size_t k = 1;
        while (k < n && ((s[k] >= 'A' && s[k] <= 'Z') || s[k] == '_'))
            k++;
        if (k >= 4 && k + 2 < n && s[k] == '(')
            keep = k + 1;
    }
    if (keep > 0 && keep < n && s[keep] == '"' && quoted_key_value(s, keep, n))
        return keep; /* the quotes are the value's (quoted_value_suffix) */
    char close;
    if (!FUSE_RULE_OFF(FUSE_RULE_BRACKETS) && keep < n && (close = closers[(unsigned char)s[keep]]) != 0) {
        size_t end = before_sentence_end(s, n, keep + 1);
        if (end >= keep + 3 && s[end - 1] != close && openers[(unsigned char)s[end - 1]])
            end = before_outer_closers(s, keep + 1, end); /* '"alice")' */
        if (end >= keep + 3 && s[end - 1] == close)
            keep++; /* something between the opener and its closer */
        else if (end >= keep + 2 && !memchr(s + keep + 1, close, end - keep - 1))
            keep++; /* an opener closed by a later token: "(a" of "(a b)" */
    }
    return keep;
}

/*
 * wildform_suffix() for a token whose last byte (before its sentence
 * punctuation, `end`) closes a bracket or quote: out of line, as few tokens
 * need it and its memchr() would cost every call a saved register or two.
 */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static size_t closed_suffix(const char *s, size_t n, size_t prefix, size_t end)
{
    char close = prefix > 0 ? closers[(unsigned char)s[prefix - 1]] : 0;
    if (close && close != s[end - 1]) {
        /* '"alice")': the ')' an earlier token opened, then the prefix's own quote */
        const size_t inner = before_outer_closers(s, prefix, end);
        if (inner < end && inner > prefix + 1 && s[inner - 1] == close)
            return n - (inner - 1);
    }
    if (close == s[end - 1] ||
        /* a closer opened by an earlier token: "b)" of "(a b)" */
        (end >= prefix + 2 && !memchr(s + prefix, openers[(unsigned char)s[end - 1]], end - 1 - prefix)))
        end--;
    return end > prefix ? n - end : 0;
}

/*
 * Sentence punctuation ending a token (",", ".", ";", ":") stays outside the
 * variable: "to 10.0.0.1," and "to LOCAL(0)," both read "to <*>,", as the
 * corrected ground truths write them; so does the closer of an opener the
 * prefix kept ("[<*>],") or of one an earlier token opened ("b)" of "(a b)").
 * Returns its length (0 when the token is nothing else).
 */
/*
 * wildform_suffix() of a key's quoted value or a JSON line's message (few
 * tokens): out of line.  Returns SIZE_MAX when neither.
 */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static size_t quoted_form_suffix(const char *s, size_t n, size_t prefix)
{
    size_t quoted;
    if (prefix == 0 && json_message_form(s, n, &quoted) == 1)
        return quoted; /* '<*>"msg":"request' */
    if (prefix == 2 && may_hold_json(s, n) && json_message_form(s, n, &quoted) == 3)
        return quoted; /* '\"<*>\"","detail":...' */
    if (prefix > 0 && (quoted = quoted_key_value(s, prefix, n)) != 0)
        return n - prefix - quoted; /* what follows the closing quote */
    return SIZE_MAX;
}

static size_t wildform_suffix(const char *s, size_t n, size_t prefix)
{
    if (prefix == 0 || (prefix == 2 && s[0] == '\\')
            ? may_hold_json(s, n)
            : prefix < n && s[prefix - 1] == '=' && s[prefix] == '"') {
        const size_t quoted = quoted_form_suffix(s, n, prefix);
        if (quoted != SIZE_MAX)
            return quoted;
    }
    size_t end = before_sentence_end(s, n, prefix);
    /* a last byte that closes a bracket or quote (few tokens): closed_suffix() */
    if (!FUSE_RULE_OFF(FUSE_RULE_BRACKETS) && end > prefix && openers[(unsigned char)s[end - 1]])
        return closed_suffix(s, n, prefix, end);
    return end > prefix ? n - end : 0;
}

/*
 * Hash of the variable form prefix + "<*>" + suffix, equal to hash_bytes()
 * of those bytes (slow path only).  They are put together on the stack, with
 * the zeroed slack hash_padded() reads; `scratch` holds a form too long for it.
 */
FUSE_INLINE int wildform_hash(ltk_strbuf *scratch, const char *s, size_t n, size_t prefix,
                              size_t suffix, uint64_t *out)
{
    char local[120];
    size_t len = prefix + LTK_WILDCARD_LEN + suffix;
    char *form = local;
    if (len + 8 > sizeof local) {
        ltk_strbuf_clear(scratch);
        if (ltk_strbuf_reserve(scratch, len + 8) != 0)
            return -1;
        form = scratch->data;
    }
    memcpy(form, s, prefix);
    memcpy(form + prefix, LTK_WILDCARD, LTK_WILDCARD_LEN);
    memcpy(form + prefix + LTK_WILDCARD_LEN, s + n - suffix, suffix);
    memset(form + len, 0, 8);
    *out = hash_padded(form, len);
    return 0;
}

/*
 * Nonzero when s[at..n) is a key in brackets whose value is masked, then
 * closers only: "(uid=<*>)", "[id=<*>],".
 */
static int is_keyed_wild_tail(const char *s, size_t at, size_t n)
{
    if (at >= n || (s[at] != '(' && s[at] != '['))
        return 0;
    size_t k = at + 1;
    while (k < n && is_key_byte(s[k]))
        k++;
    if (k == at + 1 || k >= n || s[k] != '=' || !is_wild_at(s, k + 1, n))
        return 0;
    size_t c = k + 1 + LTK_WILDCARD_LEN;
    while (c < n && memchr(")],;.", s[c], 5)) /* only closers after the value */
        c++;
    return c == n;
}

/*
 * The kept prefix and suffix of s[0..n)'s variable form (wildform_prefix,
 * wildform_suffix), but for a word glued before a key in brackets whose
 * value is masked already: "alice(uid=<*>)" (pam_unix's "session opened for
 * user alice(uid=1000)") is its own form by those, "alice(uid=" kept, so
 * lines of other users were never siblings; its form is "<*>(uid=<*>)", the
 * word a value of the slot as any other word there.  Only a word in small
 * letters, digits, '_', '-', '.' (a user's, a host's name), and only closers
 * after the masked value: a class's or a call's name has capitals and keeps
 * its form, as its key's value varies ("Surface(name=<*>)", whichever of
 * its values a mask took whole).
 */
static void variable_form_bounds(const char *s, size_t n, size_t *prefix, size_t *suffix)
{
    size_t keep = wildform_prefix(s, n), tail = wildform_suffix(s, n, keep);
    if (!FUSE_RULE_OFF(FUSE_RULE_KEY_VALUES)) {
        size_t w = 0; /* the name's length */
        if (keep == 0 && is_wild_at(s, 0, n)) {
            /* the same word masked already, a value word ("root(uid=0)" ->
               "<*>(uid=<*>)"): without this its form was "<*>", another
               sibling group than the other users' lines */
            w = LTK_WILDCARD_LEN;
        } else if (keep > 2 && s[keep - 1] == '=' && keep + LTK_WILDCARD_LEN + tail == n &&
                   is_wild_at(s, keep, keep + LTK_WILDCARD_LEN)) {
            /* a name in small letters: a class's or a call's has capitals */
            while (w < keep && ((s[w] >= 'a' && s[w] <= 'z') || (s[w] >= '0' && s[w] <= '9') ||
                                s[w] == '_' || s[w] == '-' || s[w] == '.'))
                w++;
        }
        if (w > 0 && is_keyed_wild_tail(s, w, n)) {
            *prefix = 0;
            *suffix = n - w;
            return;
        }
    }
    *prefix = keep;
    *suffix = tail;
}

/*
 * The variable form of word i of the line or template being read, t[0..len)
 * (its hash and salted hash already in st->tok_hash[i] and st->salt_tok[i],
 * st->tok_wild[i] set): its kept prefix and suffix, the form's hash and
 * salted hash, in st->wf_prefix, wf_suffix, wf_hash and salt_wf.  -1 when
 * out of memory.
 */
FUSE_INLINE int word_variable_form(ltk_fuse_state *st, size_t i, const char *t, size_t len)
{
    size_t keep = 0, tail = 0;
    if (!st->tok_wild[i])
        variable_form_bounds(t, len, &keep, &tail);
    st->wf_prefix[i] = keep;
    st->wf_suffix[i] = tail;
    st->wf_hash[i] = st->wild_dots[0];
    if ((st->wf_prefix[i] || st->wf_suffix[i]) &&
        wildform_hash(&st->wfscratch, t, len, st->wf_prefix[i], st->wf_suffix[i],
                      &st->wf_hash[i]) != 0)
        return -1;
    st->salt_wf[i] = st->wf_hash[i] == st->tok_hash[i] ? st->salt_tok[i]
                                                       : salted(st->wf_hash[i], i);
    return 0;
}

/* ------------------------------------------------------------ life cycle */

static int fuse_init(logtk_parser *p, void *state)
{
    ltk_fuse_state *st = state;
    st->threshold = 4; /* best global value of 2..8 on Loghub-2k, of 2..5 on every GT (doc/fuse.md) */
    st->max_entries = 4L << 20;
    st->header_auto = 1;
    st->line_cache = 1;
    static const char wild_dots[] = "<*>...";
    for (size_t d = 0; d < FUSE_WILD_DOTS; d++)
        st->wild_dots[d] = hash_bytes(wild_dots, LTK_WILDCARD_LEN + d);
    st->wild_comma = hash_bytes(LTK_WILDCARD ",", LTK_WILDCARD_LEN + 1);
    /*
     * Tables sized for what comes, not up front: memory reserved in the
     * heap is fresh memory that each new parser touches again (page faults
     * when free() gave it back), and growing by doubling copies little.
     * The group and pool maps alone start at 4096 keys: a log of new
     * messages fills them in its first lines (Mac: 3,500 groups in 2,000
     * lines), and growing them there only adds the old table to the peak.
     */
    if (ltk_u64map_init(&st->exact, 256) != 0 || ltk_u64map_init(&st->groups, 4096) != 0 ||
        ltk_u64map_init(&st->by_text, 256) != 0 || ltk_u64map_init(&st->pools, 4096) != 0 ||
        ltk_u64map_init(&st->text_tails, 16) != 0 || ltk_u64map_init(&st->text_keys, 16) != 0 ||
        ltk_u64map_init(&st->transitions, 16) != 0)
        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    return LOGTK_OK;
}

/* ------------------------------------------------------------- templates */

static uint32_t resolve(const ltk_fuse_state *st, uint32_t id)
{
    return ltk_fuse_resolve(st, id);
}

int ltk_fuse_ensure_redirect(ltk_fuse_state *st, uint32_t id)
{
    if (id < st->redirect_cap)
        return 0;
    size_t cap = st->redirect_cap ? st->redirect_cap : 256;
    while (cap <= id)
        cap *= 2;
    uint32_t *r = realloc(st->redirect, cap * sizeof *r);
    if (!r)
        return -1;
    memset(r + st->redirect_cap, 0, (cap - st->redirect_cap) * sizeof *r);
    st->redirect = r;
    uint64_t *w = realloc(st->word_slots, cap * sizeof *w);
    if (!w)
        return -1; /* (redirect grown, its cap not: grown again next time) */
    memset(w + st->redirect_cap, 0, (cap - st->redirect_cap) * sizeof *w);
    st->word_slots = w;
    st->redirect_cap = cap;
    return 0;
}

/*
 * Template `from` joins template `to` (both resolved, different): from now
 * on `from` resolves to `to`, and its lines show `to`'s text (the shared
 * layer keeps both ids).  LOGTK_OK, or the error of ltk_tmpl_alias() or
 * LOGTK_ERR_NOMEM.
 */
static int join_template(logtk_parser *p, ltk_fuse_state *st, uint32_t from, uint32_t to)
{
    assert(from != to && resolve(st, from) == from && resolve(st, to) == to);
    if (ltk_fuse_ensure_redirect(st, from) != 0)
        return LOGTK_ERR_NOMEM;
    st->redirect[from] = to;
    st->word_slots[to] |= st->word_slots[from];
    return ltk_tmpl_alias(p, from, to);
}

/* Content hash of a template's tokens. */
static uint64_t template_hash(const logtk_slice *t, size_t n)
{
    uint64_t h = ltk_mix64(n + 1);
    for (size_t i = 0; i < n; i++)
        h += salted(hash_bytes(t[i].ptr, t[i].len), i);
    return h;
}

/*
 * The places of a group's slot: a sibling group's one position, or the two
 * or three places where a twin group's word was printed (register_twin;
 * FUSE_TWIN_GROUP set, the places below 64, a byte each, the third 0 when
 * none, each stored plus one).  Returns how many, filling at[].
 */
#define FUSE_TWIN_GROUP 0x80000000u
static size_t group_places(uint32_t position, size_t at[3])
{
    if (!(position & FUSE_TWIN_GROUP)) {
        at[0] = position;
        return 1;
    }
    size_t k = 0;
    for (int b = 0; b < 3; b++)
        if ((position >> (8 * b)) & 0xff)
            at[k++] = ((position >> (8 * b)) & 0xff) - 1u;
    return k;
}

/*
 * Template id p now has "<*>" at pos; merge it into an earlier template with
 * the same text.  *fresh (when not NULL) is set when the template now has a
 * text no template had: then it has not been settled there (settle_template).
 */
static int generalize(logtk_parser *p, ltk_fuse_state *st, uint32_t id, size_t pos, int *fresh)
{
    if (fresh)
        *fresh = 0;
    id = resolve(st, id);
    size_t n;
    const logtk_slice *t = ltk_tmpl_tokens(p, id, &n);
    if (!t || pos >= n || ltk_is_wildcard(t[pos].ptr, t[pos].len))
        return LOGTK_OK;
    int rc;
    size_t keep, tail;
    variable_form_bounds(t[pos].ptr, t[pos].len, &keep, &tail);
    if (keep == 0 && tail == 0) {
        rc = ltk_tmpl_set_wildcard(p, id, pos);
    } else {
        if (n > st->edit_cap) {
            logtk_slice *e = realloc(st->edit, n * sizeof *e);
            if (!e)
                return LOGTK_ERR_NOMEM;
            st->edit = e;
            st->edit_cap = n;
        }
        ltk_strbuf_clear(&st->wform);
        if (ltk_strbuf_append(&st->wform, t[pos].ptr, keep) != 0 ||
            ltk_strbuf_append(&st->wform, LTK_WILDCARD, LTK_WILDCARD_LEN) != 0 ||
            ltk_strbuf_append(&st->wform, t[pos].ptr + t[pos].len - tail, tail) != 0)
            return LOGTK_ERR_NOMEM;
        memcpy(st->edit, t, n * sizeof *t);
        st->edit[pos].ptr = st->wform.data;
        st->edit[pos].len = st->wform.len;
        rc = ltk_tmpl_set(p, id, st->edit, n);
    }
    if (rc != LOGTK_OK)
        return rc;
    t = ltk_tmpl_tokens(p, id, &n);
    uint64_t h = template_hash(t, n);
    uint32_t other = map_get(&st->by_text, h);
    if (other != FUSE_NO_ID && resolve(st, other) != id)
        return join_template(p, st, id, resolve(st, other));
    if (ltk_u64map_put(&st->by_text, h, id) != 0)
        return LOGTK_ERR_NOMEM;
    if (fresh)
        *fresh = 1;
    return LOGTK_OK;
}

/*
 * Template id (resolved) took words at pos: a promoted group made it a
 * variable there.  Kept in its word_slots and in slot_positions of its length.
 */
static void note_word_slot(logtk_parser *p, ltk_fuse_state *st, uint32_t id, size_t pos)
{
    size_t n;
    st->word_slots[id] |= ltk_fuse_slot_bit(pos);
    if (ltk_tmpl_tokens(p, id, &n) != NULL)
        *ltk_fuse_slots_of_length(st, n) |= ltk_fuse_slot_bit(pos);
}

/* Adds group g to the twin groups (finish_twins reads them).  0, or -1 on no memory. */
static int keep_twin_group(ltk_fuse_state *st, uint32_t g)
{
    if (ltk_array_reserve((void **)&st->twin_groups, &st->twin_groups_cap, st->ntwin_groups + 1,
                          sizeof *st->twin_groups) != 0)
        return -1;
    st->twin_groups[st->ntwin_groups++] = g;
    return 0;
}

int ltk_fuse_note_templates(logtk_parser *p, ltk_fuse_state *st)
{
    st->ntwin_groups = 0;
    for (uint32_t g = 0; g < st->ngroups; g++) {
        const ltk_fuse_group *grp = ltk_fuse_group_at(st, g);
        if ((grp->position & FUSE_TWIN_GROUP) && keep_twin_group(st, g) != 0)
            return -1;
        size_t at[3], places = grp->promoted ? group_places(grp->position, at) : 0;
        for (uint32_t v = 0; places && v < grp->nvalues; v++)
            for (size_t k = 0; k < places; k++)
                note_word_slot(p, st, resolve(st, ltk_fuse_group_member(st, grp, v)), at[k]);
    }
    return 0;
}

/*
 * Template id takes words at `places` (ltk_fuse_slot_bit() of each
 * position; those past its tokens, or holding no "<*>", are left): what a
 * merged shard or a saved state learned there, as note_word_slot() keeps
 * it.  0, or -1 on no memory.
 */
int ltk_fuse_take_places(logtk_parser *p, ltk_fuse_state *st, uint32_t id, uint64_t places)
{
    size_t n;
    const logtk_slice *t = ltk_tmpl_tokens(p, id, &n);
    if (t == NULL || places == 0)
        return 0;
    if (ltk_fuse_ensure_redirect(st, id) != 0)
        return -1;
    for (size_t pos = 0; pos < n; pos++)
        if ((places & ltk_fuse_slot_bit(pos)) && ltk_holds_wildcard(t[pos].ptr, t[pos].len))
            note_word_slot(p, st, id, pos);
    return 0;
}

/* ------------------------------------------------------------------- feed */

static int grow_scratch(ltk_fuse_state *st, size_t n)
{
    if (n <= st->tok_cap)
        return 0;
    size_t cap = st->tok_cap ? st->tok_cap : 64;
    while (cap < n)
        cap *= 2;
    /* every per-token array, grown together: each keeps its old contents and
       memory when another fails, and tok_cap moves only when all grew */
    struct {
        void **array;
        size_t elem;
    } const arrays[] = {
        {(void **)&st->tok_off, sizeof *st->tok_off},
        {(void **)&st->tok_len, sizeof *st->tok_len},
        {(void **)&st->tok_hash, sizeof *st->tok_hash},
        {(void **)&st->tok_wild, sizeof *st->tok_wild},
        {(void **)&st->tok_form, sizeof *st->tok_form},
        {(void **)&st->tok, sizeof *st->tok},
        {(void **)&st->kept, sizeof *st->kept},
        {(void **)&st->wf_prefix, sizeof *st->wf_prefix},
        {(void **)&st->wf_suffix, sizeof *st->wf_suffix},
        {(void **)&st->wf_hash, sizeof *st->wf_hash},
        {(void **)&st->sib_key, sizeof *st->sib_key},
        {(void **)&st->sib_group, sizeof *st->sib_group},
        {(void **)&st->sib_known, sizeof *st->sib_known},
        {(void **)&st->sib_spot, sizeof *st->sib_spot},
        {(void **)&st->salt_tok, sizeof *st->salt_tok},
        {(void **)&st->salt_wf, sizeof *st->salt_wf},
        {(void **)&st->stash_off, sizeof *st->stash_off},
        {(void **)&st->stash_len, sizeof *st->stash_len},
    };
    int failed = 0;
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
        void *grown = realloc(*arrays[k].array, cap * arrays[k].elem);
        if (grown)
            *arrays[k].array = grown;
        else
            failed = 1;
    }
    if (failed)
        return -1;
    st->tok_cap = cap;
    return 0;
}

/*
 * A word that reads as a value rather than as a message word: it holds a
 * masked part ("LOCAL(<*>)") or a dot between letters or digits (host
 * names, class and file names: "host.example.org", "a.b.C").  Message words
 * are not written like that in any of the logs we know.
 */
/* Bytes the two scans below stop at; every other byte is passed over with one test. */
enum { MARK_NONE = 0, MARK_ALNUM = 1, MARK_OPEN = 2, MARK_DOT = 3 };
static const unsigned char word_marks[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1,
    ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1,
    ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1,
    ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
    ['Y'] = 1, ['Z'] = 1,
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
    ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
    ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
    ['y'] = 1, ['z'] = 1,
    ['<'] = MARK_OPEN, ['.'] = MARK_DOT,
};

/* s[i] is a dot between letters or digits ("a.b", "v1.2"): a name's or a number's. */
FUSE_INLINE int is_inner_dot(const char *s, size_t i, size_t n)
{
    return s[i] == '.' && i > 0 && i + 1 < n && is_alnum_byte(s[i - 1]) &&
           is_alnum_byte(s[i + 1]);
}

static int looks_like_value(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned mark = word_marks[(unsigned char)s[i]];
        if (mark == MARK_OPEN && is_wild_at(s, i, n))
            return 1;
        if (mark == MARK_DOT && is_inner_dot(s, i, n))
            return 1;
    }
    return 0;
}

/*
 * A word in quotes, the quotes its first and last byte ("'Active'",
 * "\"eth0\""): code quotes the value it inserts into a message ("state
 * '%s'"; maybe closing brackets earlier tokens opened, '"alice")'), so two
 * different quoted words in one slot are two values of one
 * field, as the full-size ground truth writes "in state <*>" for Mac's
 * "'Active'" and "'Inactive'".  The slot's variable form ("'<*>'": a
 * group's words share it) counts as one, as a merged shard's template
 * shows it.  So at a message's first word too, which is its event when
 * written, a value when quoted ("'worker' with pid 4211", supervisord's
 * "spawned:" taken as the header's component; PowerDNS' "'example.org',
 * primary: ..."); not a quoted keyword in capitals there, the command a
 * line reports ("\"PASV\" 227 -", "\"QUIT\" 221 -": ProFTPD's ExtendedLog
 * quotes each FTP command, arguments and all), which is the message's
 * word as an unquoted one is. n: without_sentence_end().  Inlined, as without_sentence_end()
 * is: each caller (the word tests of learning, find_twins) keeps its copy.
 */
/*
 * A word in GNU's quotes: "‘x’" and "“x”" in a UTF-8 locale, "`x'" in the C
 * locale (GCC's "unused variable ‘x’", ld's "undefined reference to
 * `missing'"), none of them inside.
 */
static int is_gnu_quoted_word(const char *s, size_t n)
{
    if (s[0] == '`')
        return n >= 3 && s[n - 1] == '\'' && memchr(s + 1, '\'', n - 2) == NULL &&
               memchr(s + 1, '`', n - 2) == NULL;
    if (n < 7 || (unsigned char)s[1] != 0x80 || (unsigned char)s[n - 3] != 0xE2 ||
        (unsigned char)s[n - 2] != 0x80)
        return 0;
    const unsigned char open = (unsigned char)s[2], close = (unsigned char)s[n - 1];
    if (!((open == 0x98 && close == 0x99) || (open == 0x9C && close == 0x9D)))
        return 0;
    for (size_t k = 3; k + 3 < n; k++)
        if ((unsigned char)s[k] == 0xE2)
            return 0;
    return 1;
}

FUSE_INLINE int is_quoted_word(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_QUOTED_SLOTS) || n < 3)
        return 0;
    if (s[0] == '`' || (unsigned char)s[0] == 0xE2)
        return is_gnu_quoted_word(s, n);
    if (s[0] != '\'' && s[0] != '"')
        return 0;
    n = before_outer_closers(s, 1, n); /* '"alice")' of '(unknown user: "alice")' */
    if (n < 3 || s[n - 1] != s[0])
        return 0;
    return memchr(s + 1, s[0], n - 2) == NULL;
}

/*
 * A name in brackets or parentheses opening the message ("(VI_WEB)
 * Entering MASTER STATE", "[alpha] msg"): the object the message is about,
 * written in front of it as "(%s) ...", so two of them with the same message
 * are two values of one field, as two quoted words are (rule quoted-slots).
 * Not a level ("[INFO]"): a level names no object.  Elsewhere in the line a
 * name in square brackets is a value so bracketed, "[%s]" as "'%s'" ("layout
 * [us]", "gameid [devtest]", "PCI Interrupt Link [LNKA]"); in parentheses
 * there it is more often an aside the code wrote ("(init)"), which stays.
 * The caller tells where.  n: without_sentence_end().
 */
static int is_bracketed_name(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_QUOTED_SLOTS) || n < 3 ||
        !((s[0] == '(' && s[n - 1] == ')') || (s[0] == '[' && s[n - 1] == ']')))
        return 0;
    int letter = 0;
    for (size_t k = 1; k + 1 < n; k++) {
        if (!is_key_byte(s[k]))
            return 0;
        letter |= is_letter(s[k]);
    }
    return letter && !ltk_fuse_is_level_word(s + 1, n - 2);
}

/*
 * A dotted name: a dot between letters or digits ("com.tencent.mm",
 * "android.intent.action.SCREEN_ON"), as packages, apps, actions and hosts
 * are written, and no parenthesis.  A slot that shows two different ones
 * is a field that names something (a component, an app, an action): the
 * message prints whichever it is about, so the slot is a variable however
 * few lines showed it (whatever else it showed, and in whatever order: a
 * shard's merge must reach what one process reaches).  Not the first word,
 * which names the actor ("rpc.statd startup succeeded"); in brackets it is
 * the object the message is about (is_bracketed_name).  A call or a stack frame
 * ("com.example.Service.close(Service.java:<*>)") is code, not a name
 * printed as data: each frame is its own message, as each kernel frame is.
 */
static int is_dotted_name(const char *s, size_t n)
{
    int dotted = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '(')
            return 0;
        dotted |= is_inner_dot(s, i, n);
    }
    return dotted;
}

/* The token is variables and punctuation only ("<*>,", "<*>,<*>", "(<*>)"). */
static int only_variables(const char *s, size_t n)
{
    int wild = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned mark = word_marks[(unsigned char)s[i]];
        if (mark == MARK_OPEN && is_wild_at(s, i, n)) {
            wild = 1;
            i += 2;
        } else if (mark == MARK_ALNUM) {
            return 0;
        }
    }
    return wild;
}

/*
 * A path in parentheses holding one blank, spread over two tokens: "(" and
 * an absolute path, then the rest of it, a '/' in it and the ")" closing
 * it ("(/var/lib/ganglia/rrds/C Nodes/cn304/pkts_out.rrd):", a directory
 * named with a blank, as "Application Support" and "Program Files" are).
 * The pair is one value, "(<*>)", as a path is (rule spaced-paths); read
 * apart, the directory's second word split the message by the first.
 */
static int is_spaced_path_aside(const logtk_slice *open, const logtk_slice *close)
{
    if (FUSE_RULE_OFF(FUSE_RULE_SPACED_PATHS) || FUSE_RULE_OFF(FUSE_RULE_PATHS))
        return 0;
    const char *s = open->ptr;
    size_t n = open->len;
    if (n < 4 || s[0] != '(' || s[1] != '/' || memchr(s + 1, ')', n - 1) != NULL ||
        memchr(s + 2, '/', n - 2) == NULL)
        return 0;
    const char *u = close->ptr;
    const size_t m = before_sentence_end(u, close->len, 0);
    if (m < 4 || u[m - 1] != ')' || u[0] == '/' || memchr(u, '(', m) != NULL ||
        memchr(u, ')', m - 1) != NULL)
        return 0;
    return memchr(u + 1, '/', m - 2) != NULL;
}

/*
 * A unit of data size ("B", "KB", "MiB", ...), maybe with a closing
 * parenthesis after it (s[0..n): a word without its sentence punctuation,
 * see without_sentence_end).  A slot that holds two different units is the
 * unit half of one quantity whose magnitude picks the unit ("93.0 B",
 * "5.2 KB"): a variable, although words.
 */
FUSE_INLINE int is_size_unit(const char *s, size_t n)
{
    /* the parenthesis, maybe with more punctuation before it */
    while (n > 0 && (s[n - 1] == ',' || s[n - 1] == '.' || s[n - 1] == ';' || s[n - 1] == ':' ||
                     s[n - 1] == ')'))
        n--;
    if (n == 0 || s[n - 1] != 'B' || n > 3) /* the last letter first, as in is_participle */
        return 0;
    if (n == 1)
        return 1;
    if (!memchr("KMGTPE", s[0], 6))
        return 0;
    return n == 2 || s[1] == 'i';
}

/*
 * A unit of time, small letters ("ns", "ms", "s", "sec", "secs", "min",
 * "mins", "h", "hr", "hrs", "day", "days"; "second(s)", "minute(s)",
 * "hour(s)"), or "bytes".
 */
static int is_time_unit(const char *s, size_t n)
{
    static const char *const units[] = {"ns",   "us",  "ms",     "s",       "sec",    "secs",
                                        "min",  "mins", "h",     "hr",      "hrs",    "day",
                                        "days", "second", "seconds", "minute", "minutes",
                                        "hour", "hours", "bytes"};
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
        if (strlen(units[k]) == n && memcmp(units[k], s, n) == 0)
            return 1;
    return 0;
}

/*
 * A parenthesised quantity spread over two tokens: "(" and a number, then a
 * unit (or a mask's "<*>") and ")" ("(1.16 KB)", "(35 ms)", "(2 GiB),").
 * The pair is one value, "(<*>)", taking one place in the sequence: a
 * number with its unit, as the full-size Loghub-2.0 ground truth writes it
 * ("<*> bytes (<*>) sent").  Loggers add such an aside only when it helps
 * (above a kilobyte, above a second); lines without it are another
 * template, because a template must match its line.  Only this exact shape
 * qualifies: a list ("(54, powerd)") or a word in the parentheses
 * ("(TID 7)") is part of the message.
 */
static int is_quantity_aside(const logtk_slice *open, const logtk_slice *close)
{
    if (FUSE_RULE_OFF(FUSE_RULE_QUANTITY))
        return 0;
    const char *s = open->ptr;
    size_t n = open->len, i = 1;
    if (n < 2 || s[0] != '(')
        return 0;
    /*
     * A digit, not a "<*>": a template's own text ("Mounted <*> (<*>
     * filesystem).") must parse back to itself, and a "<*>" there stands
     * for a word that was no number ("ext3").
     */
    if (s[1] < '0' || s[1] > '9')
        return 0;
    while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'))
        i++;
    if (i != n)
        return 0;
    const char *u = close->ptr;
    const size_t m = before_sentence_end(u, close->len, 0);
    if (m < 2 || u[m - 1] != ')')
        return 0;
    if (m == 4 && is_wild_at(u, 0, m))
        return 1; /* a unit a mask already replaced */
    /* a unit of size or time ("KB", "kB", "ms", "bytes"); a noun counts
       things and stays the message's ("5 keys (0 volatile)", Redis) */
    return is_size_unit(u, m - 1) || is_time_unit(u, m - 1) ||
           (m == 3 && u[0] == 'k' && u[1] == 'B');
}

/*
 * A bounded quantity over two tokens: a number with a bound sign, then its
 * unit ("<1 sec", ">=5 min,").  A logger prints a bound where the exact
 * value is too small or too large to print ("lifetime <1 sec" beside
 * "lifetime 00:17"), so the pair is the value of the field and takes its
 * place as one variable; the unit word is part of it.  Only a unit of time
 * or size: memcached's verbose log marks replies ">24 STORED" and requests
 * "<24 get key" (a connection's number after '<' or '>'), which read as
 * "<*>" whole when any word passed for a unit.
 */
static int is_bound_quantity(const logtk_slice *number, const logtk_slice *unit)
{
    if (FUSE_RULE_OFF(FUSE_RULE_BOUND))
        return 0;
    const char *s = number->ptr;
    size_t n = number->len, i = bound_sign(s, n);
    if (i == 0)
        return 0;
    for (; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || s[i] == '.'))
            return 0;
    const char *u = unit->ptr;
    size_t m = unit->len;
    while (m > 0 && (u[m - 1] == ',' || u[m - 1] == '.' || u[m - 1] == ';' || u[m - 1] == ':' ||
                     u[m - 1] == ')'))
        m--;
    if (m == 0 || m > 8 || unit->ptr < s + n || unit->ptr - (s + n) > 8)
        return 0; /* a short unit word, a few blanks after the number */
    return is_size_unit(u, m) || is_time_unit(u, m);
}

/* The digits at s[i..n), at most `most`: how many (0 when fewer than `least`). */
static size_t digit_run(const char *s, size_t i, size_t n, size_t least, size_t most)
{
    size_t k = i;
    while (k < n && k - i < most && s[k] >= '0' && s[k] <= '9')
        k++;
    return k - i >= least && (k == n || s[k] < '0' || s[k] > '9') ? k - i : 0;
}

/* n less the sentence punctuation and closing brackets ending s[0..n). */
static size_t before_closers(const char *s, size_t n)
{
    while (n > 0 && (s[n - 1] == ',' || s[n - 1] == '.' || s[n - 1] == ';' || s[n - 1] == ':' ||
                     s[n - 1] == ')' || s[n - 1] == ']'))
        n--;
    return n;
}

/* The length of "name=" opening s[0..n) (letters and '_', then '='), else 0. */
static size_t key_prefix(const char *s, size_t n)
{
    size_t k = 0;
    while (k < n && (is_letter(s[k]) || s[k] == '_'))
        k++;
    return k > 0 && k < n && s[k] == '=' ? k + 1 : 0;
}

/*
 * The end of the time of day opening c[0..n): one or two digits, then up to
 * two fields of ':' and two digits ("17:26", "05:00:00"), then a fraction of
 * the second after "hh:mm:ss" ("11:38:49.414"); 0 when a ':' is followed by
 * no two digits.  Digits are tested as digits only (fuse_shape.c).
 */
static size_t clock_time_end(const char *c, size_t n)
{
    size_t k = digit_run(c, 0, n, 1, 2);
    for (int fields = 0; fields < 2 && k < n && c[k] == ':'; fields++) {
        size_t g = digit_run(c, k + 1, n, 2, 2);
        if (g == 0)
            return 0;
        k += 1 + g;
    }
    if (k < n && c[k] == '.' && k >= 7) /* a fraction of the second */
        k += 1 + digit_run(c, k + 1, n, 1, 9);
    return k;
}

/*
 * A timestamp inside a message, over two or three tokens one or two blanks apart: a
 * date, three numbers joined by one '-' or '/' with the year's four digits
 * first or last ("2017-05-16", "2017/7/1", "06/10/2013"), maybe as a key's
 * value ("when=2017-07-01"); then a time, numbers joined by ':' ("05:00:00",
 * "17:26", "11:38:49.414", "18:25:22,080"); then maybe a numeric zone offset ("+0000");
 * the last may close with punctuation ("19:52:56,", "12:00:00:").
 * Returns how many tokens of t[0..avail) it spans, 2 or 3, or 0.  The
 * full-size Loghub-2.0 ground truth writes such a timestamp as one "<*>"
 * wherever a message prints it (Mac's "RTC: Maintenance <*>, sleep <*>",
 * OpenStack's "from <*> to <*>", Zookeeper's "built on <*> GMT", Mac's
 * "when=<*> confidence"), as it writes "12:34:56" or "10.0.0.1:80".  Not
 * for a message's first token (the caller's test): a date and time opening
 * a message are the header of a log it embeds ("2017-07-01 19:46:26.133
 * GoogleSoftwareUpdateAgent[31702]"), and the ground truth writes a
 * header's date and time as two fields, "<*> <*>".  Digits are tested as
 * digits only, so lines of one shape span alike (fuse_shape.c).
 */
static size_t timestamp_span(const logtk_slice *t, size_t avail)
{
    const char *d = t[0].ptr, *c = t[1].ptr;
    size_t dn = t[0].len, cn = t[1].len;
    /* (timestamp_at() tested the lengths and the digits at the two ends) */
    assert(avail >= 2 && dn >= 6 && cn >= 4);
    if ((c[1] != ':' && c[2] != ':') || c <= d + dn || c - (d + dn) > 2)
        return 0; /* (one or two blanks apart: apt's history.log prints two) */
    size_t i = key_prefix(d, dn); /* the date, after a key's name and '=' */
    size_t g1 = digit_run(d, i, dn, 1, 4);
    if (g1 == 0 || i + g1 >= dn || (d[i + g1] != '-' && d[i + g1] != '/'))
        return 0;
    const char sep = d[i + g1];
    size_t j = i + g1 + 1, g2 = digit_run(d, j, dn, 1, 2);
    if (g2 == 0 || j + g2 >= dn || d[j + g2] != sep)
        return 0;
    j += g2 + 1;
    size_t g3 = digit_run(d, j, dn, 1, 4);
    if (j + g3 != dn || g3 == 0 || (g1 == 4) == (g3 == 4) || (g1 != 4 && g1 > 2) ||
        (g3 != 4 && g3 > 2))
        return 0;
    size_t cm = before_closers(c, cn), k = clock_time_end(c, cm);
    if (k < cm && c[k] == ',' && k >= 7 && digit_run(c, k + 1, cm, 3, 3))
        k += 4; /* log4j's milliseconds, "18:25:22,080" */
    if (k != cm || k < 4)
        return 0;
    if (cm == cn && avail >= 3 && t[2].ptr > c + cn && t[2].ptr - (c + cn) <= 2 &&
        t[2].len >= 5 &&
        (t[2].ptr[0] == '+' || t[2].ptr[0] == '-') &&
        digit_run(t[2].ptr, 1, t[2].len, 4, 4) == 4 &&
        before_closers(t[2].ptr, t[2].len) == 5)
        return 3;
    return 2;
}

/* A day of the month, one or two digits filling s[0..n). */
static int is_day_number(const char *s, size_t n)
{
    return n <= 2 && digit_run(s, 0, n, 1, 2) == n;
}

/* A year, four digits filling s[0..n). */
static int is_year_number(const char *s, size_t n)
{
    return n == 4 && digit_run(s, 0, 4, 4, 4) == 4;
}

/* The time of day "hh:mm:ss" (a fraction too) filling s[0..n) (clock_time_end). */
static int is_clock_time(const char *s, size_t n)
{
    return clock_time_end(s, n) == n && n >= 7;
}

/*
 * A date written with the month's name, as ctime(3), date(1) and RFC 5322
 * print it inside a message, over tokens t[0..avail): a weekday or not, the
 * month, the day and the time ("Tue Dec  8 11:22:33", "Jun 17 07:07:00"),
 * then a year, or a zone's name and a year ("Sat May  8 09:04:50 EDT 2004",
 * as uname -v prints a kernel's build date), or the year before the time
 * ("May  1 2026 20:02:15", C's __DATE__ and __TIME__ in a program's banner:
 * ProFTPD's "(built Fri May 1 2026 20:02:15 UTC)"); or a weekday with a comma or
 * not, the day, the month, the year and the time, then a numeric zone or
 * not ("Sat, 06 Dec 2026 19:20:01 +0000").  A bracket may open it, kept
 * ("[Sun, 06 Dec 2026 19:20:01.123456 UTC]", Samba's authentication audit),
 * and the last token may close with punctuation.  Returns the tokens it spans (3 to 6), 0 when t opens none.
 * One value, as timestamp_span's are (rule calendar-dates): each of its
 * words a value already (rule calendar; digits), it was four to six "<*>"
 * that a line ending elsewhere printed as four to six fields, where the 2k
 * ground truths write BGL's "status=M <*>" and Linux's "... EDT 2004" as
 * one, and a zone's name alone after a date stays a word as Zookeeper's
 * "built on <*> GMT" keeps it.  Digits are read as digits only, so lines of
 * one shape span alike (fuse_shape.c).
 */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static size_t calendar_date_span(const logtk_slice *in, size_t avail)
{
    /* the date read without a bracket opening it ("[Sun, 06 Dec 2026 ...]", Samba's) */
    logtk_slice t[7];
    if (avail > 7)
        avail = 7;
    memcpy(t, in, avail * sizeof *t);
    if (t[0].ptr[0] == '[' || t[0].ptr[0] == '(') {
        t[0].ptr++;
        t[0].len--;
    }
    size_t k = 0;
    if (ltk_fuse_is_calendar_word(t[0].ptr, t[0].len - (t[0].len == 4 && t[0].ptr[3] == ',')) == 2)
        k = 1; /* a weekday */
    if (k + 3 > avail)
        return 0;
    size_t end;
    if (ltk_fuse_is_calendar_word(t[k].ptr, t[k].len) == 1) {
        /* month, day, time: ctime's order; or month, day, year, time: C's
           __DATE__ and __TIME__, as programs print their build's date */
        if (!is_day_number(t[k + 1].ptr, t[k + 1].len))
            return 0;
        if (k + 4 <= avail && is_year_number(t[k + 2].ptr, t[k + 2].len)) {
            end = before_closers(t[k + 3].ptr, t[k + 3].len);
            return is_clock_time(t[k + 3].ptr, end) ? k + 4 : 0;
        }
        end = before_closers(t[k + 2].ptr, t[k + 2].len);
        if (!is_clock_time(t[k + 2].ptr, end))
            return 0;
        k += 3;
        if (end < t[k - 1].len)
            return k; /* "...:33)": closed */
        /* a year, or a zone's name and a year */
        if (k + 1 < avail && ltk_fuse_is_zone_name(t[k].ptr, t[k].len) &&
            is_year_number(t[k + 1].ptr, before_closers(t[k + 1].ptr, t[k + 1].len)))
            return k + 2;
        if (k < avail && is_year_number(t[k].ptr, before_closers(t[k].ptr, t[k].len)))
            return k + 1;
        return k;
    }
    /* day, month, year, time: RFC 5322's order, after a weekday */
    if (k == 0 || k + 4 > avail || !is_day_number(t[k].ptr, t[k].len) ||
        ltk_fuse_is_calendar_word(t[k + 1].ptr, t[k + 1].len) != 1 ||
        !is_year_number(t[k + 2].ptr, t[k + 2].len))
        return 0;
    end = before_closers(t[k + 3].ptr, t[k + 3].len);
    if (!is_clock_time(t[k + 3].ptr, end))
        return 0;
    k += 4;
    if (end == t[k - 1].len && k < avail && t[k].len >= 5 &&
        (t[k].ptr[0] == '+' || t[k].ptr[0] == '-') && digit_run(t[k].ptr, 1, t[k].len, 4, 4) == 4 &&
        before_closers(t[k].ptr, t[k].len) == 5)
        k++;
    return k;
}

/* calendar_date_span() behind its first test: a capital and a small letter, three or four bytes */
FUSE_INLINE size_t calendar_date_at(const logtk_slice *t, size_t avail)
{
    if (FUSE_RULE_OFF(FUSE_RULE_CALENDAR_DATES) || avail < 3 || t[0].len < 3)
        return 0;
    const size_t o = t[0].ptr[0] == '[' || t[0].ptr[0] == '('; /* (an opening bracket) */
    if (t[0].len - o - 3 > 1u || (unsigned)(unsigned char)t[0].ptr[o] - 'A' > 25u ||
        (unsigned)(unsigned char)t[0].ptr[o + 1] - 'a' > 25u)
        return 0;
    return calendar_date_span(t, avail);
}

/* timestamp_span() behind its first test, inline: nearly every token fails it. */
FUSE_INLINE size_t timestamp_at(const logtk_slice *t, size_t avail)
{
    if (FUSE_RULE_OFF(FUSE_RULE_TIMESTAMPS) || avail < 2 || t[0].len < 6 || t[1].len < 4)
        return 0;
    const unsigned last = (unsigned char)t[0].ptr[t[0].len - 1],
                   next = (unsigned char)t[1].ptr[0];
    if (last - '0' > 9u || next - '0' > 9u) /* (a byte below '0' wraps) */
        return 0;
    return timestamp_span(t, avail);
}

/*
 * The masked form of a timestamp joined (timestamp_span, calendar_date_span) into one slice: a
 * key's name and '=' when it is one's value, or a bracket opening it, "<*>", and the punctuation
 * closing it.  Writes out (room for s's length + 8) and returns the length.
 */
static size_t mask_timestamp(const char *s, size_t n, char *out)
{
    /* a key's name and '=', or the bracket opening a date (calendar_date_span) */
    const size_t key = s[0] == '[' || s[0] == '(' ? 1 : key_prefix(s, n);
    const size_t end = before_closers(s, n);
    memcpy(out, s, key);
    char *o = put_wildcard(out + key);
    memcpy(o, s + end, n - end);
    return (size_t)(o - out) + (n - end);
}

/*
 * A quoted field closing the line and holding blanks, t[0] .. t[k - 1]
 * ('"Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101
 * Firefox/120.0"', the user agent of the Combined Log Format): one field,
 * one token, however many words it holds; as tokens its words would make a
 * template per shape of the value.  Returns k (2 to 64; the span opens at
 * t[0] and ends with the line), 0 when t is no such span.  Only a field
 * closing the line: a quoted request line inside it ('"GET /x HTTP/1.1"')
 * stays three words, its method the message's (the full lists' "GET <*>").
 * q: the quote, '"' or '\'' (squid's "match: checking 'Mozilla/5.0 (X11;
 * ...)'"); no other q inside, so a field holding an apostrophe stays words.
 */
static size_t quoted_tail(const logtk_slice *t, size_t avail, char q)
{
    if (FUSE_RULE_OFF(FUSE_RULE_QUOTED_SLOTS) || avail < 2 || avail > 64 || t[0].ptr[0] != q)
        return 0;
    const logtk_slice *last = &t[avail - 1];
    if (last->ptr[last->len - 1] != q || (t[0].len > 1 && memchr(t[0].ptr + 1, q, t[0].len - 1)))
        return 0;
    for (size_t k = 1; k + 1 < avail; k++)
        if (memchr(t[k].ptr, q, t[k].len))
            return 0;
    return last->len == 1 || !memchr(last->ptr, q, last->len - 1) ? avail : 0;
}

/* The most tokens a quoted phrase inside the line spans (quoted_span). */
#define FUSE_QUOTED_SPAN_MAX 16

/*
 * Bytes a quoted phrase does not hold (quoted_span): the signs of paths,
 * keys, markup and expressions.  A request line ("GET /x HTTP/1.1"), a
 * key's value ("a=b c") or a dump is no phrase: its words are read one by
 * one, as before.  Digits are a phrase's ("sales report 2024", "AT
 * Translated Set 2 keyboard"), masked in its text as a word's are.
 */
static const unsigned char not_phrase[256] = {
    ['/'] = 1, ['\\'] = 1, ['='] = 1, ['<'] = 1,
    ['>'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1, ['@'] = 1, ['%'] = 1,
    ['$'] = 1, ['#'] = 1, ['*'] = 1, ['|'] = 1, ['`'] = 1, ['~'] = 1, ['^'] = 1,
    ['+'] = 1, ['&'] = 1, ['"'] = 1,
};

/* Bytes a quoted path does not hold (quoted_span): the other quote only. */
static const unsigned char no_bar[256] = {['"'] = 1};

/*
 * Whether a word of the message comes before token i of tok: a token from
 * tok[hdr] on of letters alone, maybe closed by ',', '.' or ';', or by ':'
 * when it is not the message's first token (a program's name, "app:").
 * Numbers, source locations and keys are no words (quoted_span).
 */
static int words_before(const logtk_slice *tok, size_t hdr, size_t i)
{
    for (size_t k = hdr; k < i; k++) {
        const char *s = tok[k].ptr;
        size_t n = tok[k].len;
        while (n > 0 && (s[n - 1] == ',' || s[n - 1] == '.' || s[n - 1] == ';' ||
                         (s[n - 1] == ':' && k > hdr)))
            n--;
        size_t b = 0;
        while (b < n && is_letter(s[b]))
            b++;
        if (n >= 2 && b == n)
            return 1;
    }
    return 0;
}

/*
 * Rule quoted-spans: a phrase in quotes inside the line, t[0] .. t[k - 1]
 * (job "backup nightly" finished; Mac's Code=-1001 "The request timed
 * out." UserInfo=...; in suite 'Microsoft Word Suite': ...).  Code
 * quotes the text it inserts (job "%s" finished), as quoted-slots says
 * of a quoted word, and a text of several words is one value all the same;
 * as tokens, its words would make a template per phrase.  The span opens
 * with the quote q at t[0] and closes at the first token holding q again,
 * with nothing after that quote but closers and sentence punctuation; it
 * spans 2 to FUSE_QUOTED_SPAN_MAX tokens, each a word of letters, digits
 * and punctuation (not_phrase: no path, key or markup), so a request
 * line stays words, its method the message's (the full lists' "GET <*>"),
 * and so do the fields quoted_tail(), keyed_span() and the members of JSON
 * read; or a path with blanks, whatever its bytes, when '/' opens it
 * (sftp-server's 'close "/srv/Quarterly Reports 2026/budget draft 3.xlsx"
 * bytes read 0 written 52').  And a word of the message comes before it
 * (words_before): a phrase that opens the message is the message
 * ('controller.go:311] "Waiting for caches to sync" controller="x"',
 * Kubernetes' structured lines; "app: "Ready to serve" ..."), not a value
 * in it.  t is token i of tok, the message's first token tok[hdr].
 * Returns k, 0 when t opens no such phrase.
 */
#if defined(__GNUC__)
__attribute__((noinline)) /* (rare: out of the token loops that join fields) */
#endif
static size_t quoted_span(const logtk_slice *tok, size_t i, size_t hdr, size_t avail, char q)
{
    const logtk_slice *t = &tok[i];
    if (FUSE_RULE_OFF(FUSE_RULE_QUOTED_SPANS) || avail < 2 || t[0].len < 2 || t[0].ptr[0] != q)
        return 0;
    /* a path opens it: any bytes (a file's name holds digits and '#') */
    const unsigned char *const bar = t[0].ptr[1] == '/' ? no_bar : not_phrase;
    const size_t most = avail < FUSE_QUOTED_SPAN_MAX ? avail : FUSE_QUOTED_SPAN_MAX;
    for (size_t k = 0; k < most; k++) {
        const char *s = t[k].ptr;
        const size_t len = t[k].len;
        if (len == 0)
            return 0;
        for (size_t b = k == 0; b < len; b++) {
            if (s[b] != q) {
                if (bar[(unsigned char)s[b]])
                    return 0;
                continue;
            }
            /* the closing quote: after a word of its own token, in a later token */
            if (k == 0 || b == 0)
                return 0;
            for (size_t r = b + 1; r < len; r++)
                if (!memchr(",.;:)", s[r], 5))
                    return 0;
            return words_before(tok, hdr, i) ? k + 1 : 0; /* (last: most quotes fail above) */
        }
    }
    return 0;
}

/*
 * The masked form of a joined quoted field (quoted_tail): each of its words
 * masked as the token it was, one blank between them, so that a field that
 * stays constant reads as it did as tokens.  out has room for
 * MASKED_MAX(n) + n (a word's MASKED_MAX, and a blank, each).
 */
static size_t mask_quoted(const char *s, size_t n, char *out)
{
    size_t o = 0, i = 0;
    while (i < n) {
        size_t end = i;
        while (end < n && s[end] != ' ' && s[end] != '\t')
            end++;
        if (o)
            out[o++] = ' ';
        o += mask_token(s + i, end - i, out + o);
        while (end < n && (s[end] == ' ' || s[end] == '\t'))
            end++;
        i = end;
    }
    return o;
}

/* The most tokens one joined field spans (keyed_span, array_span). */
#define FUSE_SPAN_MAX 256

/*
 * The end of the JSON array element that opens s[at..n): a string closed
 * in s (in single quotes: a Python list's repr), or a number or literal up
 * to a ',' or ']' (letters, digits, '.', '-', '+'); at when none does.
 */
static size_t array_element_end(const char *s, size_t at, size_t n)
{
    if (at < n && (s[at] == '"' || s[at] == '\'')) {
        const size_t close = closing_quote(s, at + 1, n, s[at]);
        return close < n ? close + 1 : at;
    }
    size_t e = at;
    while (e < n && (is_alnum_byte(s[e]) || s[e] == '.' || s[e] == '-' || s[e] == '+'))
        e++;
    return e;
}

/*
 * The tokens t[0] .. t[k - 1] of a JSON array of values printed with a
 * blank after each ',' (Python's json.dumps: '"tags": ["web", "api"],'),
 * t[0] right after a member's name (after_member_name): '[' and an element
 * and ',' in t[0], an element and ',' in each token after, an element and
 * the ']' in t[k - 1], then only closers and commas.  As tokens, an array
 * made a template per length; as one token it is one value, as a compact
 * array is (mask_array).  Returns k (2 to FUSE_SPAN_MAX), else 0.
 */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static size_t array_span(const logtk_slice *t, size_t i, size_t avail)
{
    if (FUSE_RULE_OFF(FUSE_RULE_KEY_VALUES) || t->len < 3 || i < 2 || !after_member_name(t - i, i))
        return 0;
    for (size_t k = 0; k < avail && k < FUSE_SPAN_MAX; k++) {
        const char *s = t[k].ptr;
        const size_t n = t[k].len, from = k == 0 ? 1 : 0;
        const size_t e = array_element_end(s, from, n);
        if (e == from || e == n)
            return 0; /* no element, or nothing after it */
        if (s[e] == ']') {
            for (size_t r = e + 1; r < n; r++)
                if (!memchr(",}]", s[r], 3))
                    return 0;
            return k >= 1 ? k + 1 : 0; /* (one token: mask_token's) */
        }
        if (s[e] != ',' || e + 1 != n)
            return 0;
    }
    return 0;
}

/*
 * The masked form of a JSON array joined by array_span(): '["<*>"]' when
 * its first element is a string ("['<*>']" in single quotes), else "[<*>]", then the rest of its last
 * token masked as a token ("],"), as mask_token() writes a compact array.
 * out has room for MASKED_MAX(n).
 */
static size_t mask_array(const char *s, size_t n, char *out)
{
    assert(n > 2 && s[0] == '[');
    size_t at = 1;
    for (;;) { /* the elements, to the ']' (array_span found it) */
        at = array_element_end(s, at, n);
        assert(at < n);
        if (s[at] == ']')
            break;
        at++;
        while (at < n && s[at] == ' ')
            at++;
    }
    char *o = out;
    *o++ = '[';
    o = s[1] == '"' || s[1] == '\'' ? put_quoted_wildcard(o, s[1]) : put_wildcard(o);
    return (size_t)(o - out) + mask_token(s + at, n - at, o);
}

/* Nonzero when s[0..n) holds a '[', ']' or '=' (bracket_value_span: none inside the value). */
static int holds_bracket_or_key(const char *s, size_t n)
{
    return memchr(s, '[', n) || memchr(s, ']', n) || memchr(s, '=', n);
}

/*
 * The tokens t[0] .. t[k - 1] of a key's value in brackets holding blanks:
 * Kea's "cid=[no info]," beside "cid=[01:02:55:00:00:00:bb],", Go's slices
 * printed with %v ("peers=[10.0.0.1 10.0.0.2]").  t[0] holds the key, its
 * '=' and the '[' (is_key_sign), no bracket or '=' after it; the tokens
 * after it hold none until the one whose ']' closes it, after which only
 * ",;)}" follow, or a ':' ending the token.  As tokens the value made a
 * template per count of its words; it is one value, "cid=[<*>]," as a
 * value of one word is (key-values).  Returns k (2 to FUSE_SPAN_MAX), else 0.
 */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static size_t bracket_value_span(const logtk_slice *t, size_t avail)
{
    const char *s = t->ptr;
    const size_t n = t->len;
    const char *open = memchr(s, '[', n);
    if (FUSE_RULE_OFF(FUSE_RULE_KEY_VALUES) || open == NULL || open - s < 2 || open[-1] != '=' ||
        !is_key_sign(s, (size_t)(open - s) - 1, n) ||
        holds_bracket_or_key(open + 1, (size_t)(s + n - open - 1)))
        return 0;
    for (size_t k = 1; k < avail && k < FUSE_SPAN_MAX; k++) {
        const char *c = memchr(t[k].ptr, ']', t[k].len);
        if (holds_bracket_or_key(t[k].ptr, c ? (size_t)(c - t[k].ptr) : t[k].len))
            return 0; /* (another key inside: the ']' closes a bracket opened before, Ceph's
                         "pg[3.6( ... pi=[14,19)/1 crt=18'5 ... mbc={}]") */
        if (c == NULL)
            continue;
        for (const char *r = c + 1; r < t[k].ptr + t[k].len; r++)
            if (!memchr(",;)}", *r, 4) && !(*r == ':' && r + 1 == t[k].ptr + t[k].len))
                return 0; /* more text glued after it (a colon ending it ends a clause) */
        return k + 1;
    }
    return 0;
}

/*
 * The masked form of a key's value joined by bracket_value_span(): the key
 * as mask_token() writes it, "[<*>]", then what closes the last token
 * ("],"). out has room for MASKED_MAX(n).
 */
static size_t mask_bracket_value(const char *s, size_t n, char *out)
{
    const char *open = memchr(s, '[', n), *close = memchr(open, ']', (size_t)(s + n - open));
    assert(open != NULL && close != NULL); /* (bracket_value_span found them) */
    size_t o = mask_token(s, (size_t)(open - s) + 1, out);
    o = (size_t)(put_wildcard(out + o) - out);
    memcpy(out + o, close, (size_t)(s + n - close));
    return o + (size_t)(s + n - close);
}

/*
 * The tokens t[0] .. t[k - 1] of a string in single quotes holding blanks,
 * the value of a Python dict's member whose name is the token before t[0]
 * (after_member_name: "'name': 'beta gamma',"), as keyed_span() joins a
 * JSON member's: opened by t[0]'s first byte, closed in t[k - 1] and only
 * closers and commas after it there.  Returns k (2 to FUSE_SPAN_MAX), else 0
 * (a string closed in t[0] is mask_in_context()'s).
 */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static size_t repr_string_span(const logtk_slice *t, size_t i, size_t avail)
{
    if (FUSE_RULE_OFF(FUSE_RULE_KEY_VALUES) || i == 0 || !after_member_name(t - i, i) ||
        closing_quote(t->ptr, 1, t->len, '\'') < t->len)
        return 0;
    for (size_t k = 1; k < avail && k < FUSE_SPAN_MAX; k++) {
        const size_t close = closing_quote(t[k].ptr, 0, t[k].len, '\'');
        if (close == t[k].len)
            continue;
        for (size_t r = close + 1; r < t[k].len; r++)
            if (!memchr(",}])", t[k].ptr[r], 4))
                return 0; /* more text glued after it */
        return k + 1;
    }
    return 0;
}

/*
 * SQL statements' string literals (rule sql-literals).  A database logs the
 * statements it runs (PostgreSQL's "statement: ...", MariaDB's general and
 * slow logs) and programs log the ones they send; a literal in quotes is
 * the statement's data, as a number is: "VALUES ('grace.12@example.pl',
 * 'Grace Hopper', 'PL')" is "VALUES ('<*>', '<*>', '<*>')", whatever blanks
 * a literal holds (query digests normalise statements so).  A line is read
 * as a statement from a verb (SELECT, INSERT, UPDATE, DELETE, MERGE,
 * REPLACE, in any case) and one of its clauses after it (FROM, INTO, SET,
 * WHERE, VALUES); the literals after that are values.  The state, per line,
 * in the callers of joined_field(): SQL_NONE (the line holds no '\''),
 * SQL_QUOTE, SQL_VERB, SQL_ON.
 */
enum { SQL_NONE = 0, SQL_QUOTE, SQL_VERB, SQL_ON };

/*
 * Nonzero when the token's letters, then '(' or its end, spell a word of
 * `words` (lowercase, packed 8 bytes a word, zero-padded), in any case.
 */
static int is_sql_word(const logtk_slice *t, const char (*words)[8], size_t nwords)
{
    char lower[8] = {0};
    size_t k = 0;
    while (k < t->len && k < sizeof lower && is_letter(t->ptr[k])) {
        lower[k] = (char)(t->ptr[k] | 0x20);
        k++;
    }
    if (k < 3 || k == sizeof lower || (k < t->len && t->ptr[k] != '('))
        return 0;
    for (size_t w = 0; w < nwords; w++)
        if (memcmp(words[w], lower, sizeof lower) == 0)
            return 1;
    return 0;
}

/*
 * Nonzero when the token's first byte is a letter that opens an SQL verb
 * or clause (s, i, u, d, m, r; f, w, v): before a statement, other tokens
 * need no call of sql_field().
 */
FUSE_INLINE int opens_sql_word(const logtk_slice *t)
{
    const unsigned c = (unsigned)((unsigned char)t->ptr[0] | 0x20) - 'a';
    return c < 26 && ((0x761128u >> c) & 1);
}

/*
 * Nonzero when the '\'' at s[at] is an apostrophe ("isn't", "O'Brien's"):
 * it follows a letter, digit or '_'; a literal's opening quote follows no
 * word.
 */
FUSE_INLINE int is_apostrophe(const char *s, size_t at)
{
    return at > 0 && (is_alnum_byte(s[at - 1]) || s[at - 1] == '_');
}

/* The most bytes mask_sql() writes a statement's joined literals into before masking. */
#define FUSE_SQL_TEXT_MAX 512

/*
 * The tokens t[0] .. t[k - 1] that hold t[0]'s string literals, to the
 * token where the last one opened there closes (a quote doubled inside a
 * literal is the literal's; a quote after a letter, digit or '_' is an
 * apostrophe, "isn't"); 0 when t[0] opens none; SIZE_MAX when one closes
 * nowhere, or the tokens with each literal's text "<*>" would not fit
 * mask_sql()'s buffer or its room (4/3 of their bytes): the line's
 * literals are then read no further (sql_field), so that its template's
 * text, read again, is read the same way.
 */
static size_t sql_literal_span(const logtk_slice *t, size_t avail)
{
    int open = 0, any = 0;
    size_t text = 0; /* mask_sql()'s bytes so far */
    for (size_t k = 0; k < avail && k < FUSE_SPAN_MAX; k++) {
        const char *s = t[k].ptr, *q;
        const size_t n = t[k].len;
        size_t from = 0;
        while (from < n && (q = memchr(s + from, '\'', n - from)) != NULL) {
            const size_t at = (size_t)(q - s);
            if (!open) {
                text += at - from + 1;
                from = at + 1;
                if (is_apostrophe(s, at))
                    continue;
                open = any = 1;
                text += LTK_WILDCARD_LEN;
            } else if (at + 1 < n && s[at + 1] == '\'') {
                from = at + 2; /* '' inside the literal */
            } else {
                open = 0;
                text++;
                from = at + 1;
            }
        }
        if (!open)
            text += n - from;
        const size_t bytes = (size_t)(s + n - t[0].ptr);
        if (text + LTK_WILDCARD_LEN + 1 > FUSE_SQL_TEXT_MAX || (!open && 3 * text > 4 * bytes))
            return SIZE_MAX;
        if (!open)
            return any ? k + 1 : 0;
        text++; /* (mask_sql() reads the blank after the token as the literal's) */
    }
    return SIZE_MAX;
}

/*
 * joined_field()'s SQL test for token t (the line holds a '\'', *sql not
 * SQL_NONE): moves *sql on by the verbs and clauses it reads, and once the
 * line is a statement returns the tokens of the literals t opens
 * (sql_literal_span), 0 otherwise; a literal that closes nowhere ends the
 * line's statement (*sql SQL_NONE).
 */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static size_t sql_field(const logtk_slice *t, size_t avail, unsigned *sql)
{
    static const char verbs[][8] = {"select", "insert", "update", "delete", "merge", "replace"};
    static const char clauses[][8] = {"from", "into", "set", "where", "values"};
    if (FUSE_RULE_OFF(FUSE_RULE_SQL_LITERALS) || t->len < 3)
        return 0;
    if (*sql != SQL_ON) {
        if (is_sql_word(t, verbs, sizeof verbs / sizeof *verbs))
            *sql = SQL_VERB;
        else if (*sql == SQL_VERB && is_sql_word(t, clauses, sizeof clauses / sizeof *clauses))
            *sql = SQL_ON; /* ("VALUES('a'," holds a literal too) */
        if (*sql != SQL_ON)
            return 0;
    }
    if (!memchr(t->ptr, '\'', t->len))
        return 0;
    const size_t k = sql_literal_span(t, avail);
    if (k == SIZE_MAX) {
        *sql = SQL_NONE;
        return 0;
    }
    return k;
}

/*
 * The masked form of tokens joined by sql_field(): each literal's text
 * "<*>" in its quotes, the rest masked as a token.  out has room for
 * MASKED_MAX(n) and more (the callers' room is 4n + 3 bytes a token, and
 * sql_literal_span() keeps the text within 4/3 of n).
 */
static size_t mask_sql(const char *s, size_t n, char *out)
{
    char text[FUSE_SQL_TEXT_MAX];
    size_t m = 0;
    int open = 0;
    for (size_t i = 0; i < n; i++) {
        assert(m + LTK_WILDCARD_LEN + 1 <= sizeof text); /* (sql_literal_span saw to it) */
        if (!open) {
            text[m++] = s[i];
            if (s[i] == '\'' && !is_apostrophe(s, i)) {
                open = 1;
                memcpy(text + m, LTK_WILDCARD, LTK_WILDCARD_LEN);
                m += LTK_WILDCARD_LEN;
            }
        } else if (s[i] == '\'' && i + 1 < n && s[i + 1] == '\'') {
            i++; /* '' inside the literal */
        } else if (s[i] == '\'') {
            text[m++] = '\'';
            open = 0;
        }
    }
    assert(!open && 3 * m <= 4 * n);
    return mask_token(text, m, out);
}

/*
 * The token of t[from .. avail) that closes a value opened in escaped quotes
 * in an earlier token: the first that holds a quote, when that quote is
 * escaped and only a field's punctuation or the next escape follows it, with
 * *after the offset past that quote; 0 when none does within FUSE_SPAN_MAX
 * tokens (keyed_span).
 */
static size_t escaped_value_end(const logtk_slice *t, size_t from, size_t avail, size_t *after)
{
    for (size_t j = from; j < avail && j < FUSE_SPAN_MAX; j++) {
        const char *c = memchr(t[j].ptr, '"', t[j].len);
        if (c == NULL)
            continue;
        const size_t at = (size_t)(c - t[j].ptr);
        if (at == 0 || c[-1] != '\\' || !closes_escaped_value(t[j].ptr, at + 1, t[j].len))
            return 0;
        *after = at + 1;
        return j;
    }
    return 0;
}

/*
 * The tokens t[0] .. t[k - 1] of a key's quoted value holding blanks,
 * opened in t[0] and closed in t[k - 1] (logfmt's err="connection refused
 * by peer", JSON's "ua":"Mozilla/5.0 (X11; Linux x86_64)"; quoted_key_value
 * tells a key's quote), with the values of keys that open again before
 * t[k - 1] closes; returns k (2 to FUSE_SPAN_MAX), 0 when t[0] opens none.
 * As tokens its words would make a template per shape of the value; as one
 * token the value is "<*>" as any key's is, and a JSON line one template
 * per message and set of keys.  The message's words stay tokens ("msg":
 * "user 42 logged in" is the developer's text, is_message_key): a string
 * that is no key's value is skipped to its end.  after_name: t[0] follows
 * a JSON member's name (after_member_name), its opening quote the value's.
 * *inside says whether t[0]
 * starts inside such a string (the line's tokens are read in order) and is
 * set to whether the token after the span (or t[0]) does.
 */
static size_t keyed_span(const logtk_slice *t, size_t avail, int after_name, int *inside)
{
    size_t k = 0, from = 0, joined = 0;
    for (;;) {
        const char *s = t[k].ptr, *q;
        const size_t n = t[k].len;
        if (*inside) { /* the rest of a string opened before */
            from = closing_quote(s, from, n, '"');
            if (from == n)
                return joined;
            *inside = 0;
            from++;
            continue;
        }
        if (from >= n || (q = memchr(s + from, '"', n - from)) == NULL)
            return joined;
        const size_t open = (size_t)(q - s);
        if (open >= 2 && s[open - 1] == '\\' && s[open - 2] == '=') {
            /* a key's value in escaped quotes ('info=\"Office Laser\"') */
            const size_t one = escaped_key_value(s, open - 1, n);
            if (one) { /* closed in its token: mask_token()'s */
                from = open - 1 + one;
                continue;
            }
            size_t after;
            const size_t j = escaped_value_end(t, k + 1, avail, &after);
            if (j == 0 || !is_key_sign(s, open - 2, n))
                return joined;
            k = j;
            joined = j + 1;
            from = after;
            continue;
        }
        size_t close = closing_quote(s, open + 1, n, '"');
        if (close < n) { /* closed in its token: a value or a name */
            from = close + 1;
            continue;
        }
        *inside = 1;
        /* (from the span's first byte: the template a merge reads holds it whole) */
        const int element = open > 0 && opens_array_element(t[0].ptr, (size_t)(s + open - t[0].ptr));
        if (open == 0 ? !(after_name && k == 0)
                      : !element && ((s[open - 1] != '=' && s[open - 1] != ':') ||
                                     !is_key_sign(s, open - 1, n)))
            return joined; /* the message's words, or no key's */
        /* the tokens after it, to the one its closing quote is in */
        size_t j = k + 1;
        for (; j < avail && j < FUSE_SPAN_MAX; j++)
            if ((close = closing_quote(t[j].ptr, 0, t[j].len, '"')) < t[j].len)
                break;
        if (j == avail || j == FUSE_SPAN_MAX ||
            (close + 1 < t[j].len && !memchr(element ? ",]" : ",;)]}&", t[j].ptr[close + 1],
                                             element ? 2 : 6)) ||
            (element && close + 1 == t[j].len))
            return joined; /* unclosed, or more text glued after it */
        *inside = 0;
        k = j;
        joined = j + 1;
        from = close + 1;
    }
}

/* The two tokens of a bounded quantity as one slice (they lie in one buffer). */
static logtk_slice joined(const logtk_slice *a, const logtk_slice *b)
{
    logtk_slice j = {a->ptr, (size_t)(b->ptr + b->len - a->ptr)};
    return j;
}

/*
 * A field that several tokens print, at token i of the line (from the
 * header's hdr on): a date and time (*form FORM_STAMP, timestamp_at) or a
 * quoted field closing the line (FORM_QUOTED, quoted_tail), neither at the
 * message's first word, or a key's quoted value (FORM_KEYED, keyed_span;
 * FORM_MEMBER when it opens the token, after a JSON member's name;
 * *quote: the line's first '"' from this token on or from a token before,
 * NULL when none, first_quote() before the first token, moved on past the
 * tokens this call reads; *inside: as keyed_span's, 0 before the first
 * token).  Returns its
 * tokens, 0 when none.  feed_tokens() and learn_sequence() join the same
 * fields through it, or their sequence hashes would differ.
 */
static size_t quoted_field(const logtk_slice *t, size_t i, size_t hdr, size_t avail,
                           const char **quote, int *inside, uint8_t *form);

static size_t single_quoted_field(const logtk_slice *t, size_t i, size_t hdr, size_t avail,
                                  uint8_t *form);

/* The first '"' after the tokens t[0] .. t[k - 1] (k >= 1) to the end of t[avail - 1], or NULL. */
static const char *quote_after(const logtk_slice *t, size_t k, size_t avail)
{
    const char *from = t[k - 1].ptr + t[k - 1].len, *end = t[avail - 1].ptr + t[avail - 1].len;
    return from < end ? memchr(from, '"', (size_t)(end - from)) : NULL;
}

FUSE_INLINE size_t joined_field(const logtk_slice *t, size_t i, size_t hdr, size_t avail,
                                const char **quote, int *inside, unsigned *sql, int key_brackets,
                                uint8_t *form)
{
    size_t k;
    if (i > hdr && ((k = timestamp_at(t, avail)) != 0 || (k = calendar_date_at(t, avail)) != 0)) {
        /* (not at the first word) */
        *form = FORM_STAMP;
        return k;
    }
    /* a statement's literals (the line holds a '\'': few do) */
    if (*sql != SQL_NONE && i >= hdr && !*inside && (*sql == SQL_ON || opens_sql_word(t)) &&
        (k = sql_field(t, avail, sql)) != 0) {
        *form = FORM_SQL;
        if (*quote != NULL)
            *quote = quote_after(t, k, avail);
        return k;
    }
    /* a key's value in brackets holding blanks ("cid=[no info],"; few lines hold a "=[") */
    if (key_brackets && i > hdr && avail >= 2 && !*inside &&
        (k = bracket_value_span(t, avail)) != 0) {
        *form = FORM_BRACKET;
        if (*quote != NULL)
            *quote = quote_after(t, k, avail);
        return k;
    }
    /* no quote in the line from this token on, nor a '\'' that may open a
       string: no quoted field (most lines) */
    if ((*quote == NULL && *sql == SQL_NONE) || avail < 2 || i < hdr)
        return 0;
    /* a spaced array after its member's name: "[" opens the token */
    if (t->ptr[0] == '[' && i > hdr && !*inside && (k = array_span(t, i, avail)) != 0) {
        *form = FORM_ARRAY;
        if (*quote != NULL)
            *quote = quote_after(t, k, avail);
        return k;
    }
    /* a Python dict member's string holding blanks, or a field or a phrase
       in single quotes: "'" opens the token */
    if (t->ptr[0] == '\'' && *sql != SQL_NONE && i > hdr && !*inside &&
        (k = single_quoted_field(t, i, hdr, avail, form)) != 0) {
        if (*quote != NULL)
            *quote = quote_after(t, k, avail);
        return k;
    }
    /* no quote in this token: no quoted field */
    if (*quote == NULL || *quote >= t->ptr + t->len)
        return 0;
    const char *next = *quote; /* (a copy: *quote stays in a register of the caller's loop) */
    k = quoted_field(t, i, hdr, avail, &next, inside, form);
    *quote = next;
    return k;
}

/*
 * joined_field() for a token that opens with '\'' in a line that may hold
 * a string in single quotes: a Python dict member's string holding blanks
 * (FORM_MEMBER), a field closing the line or a phrase inside it
 * (FORM_QUOTED).  Out of line, few tokens do.
 */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static size_t single_quoted_field(const logtk_slice *t, size_t i, size_t hdr, size_t avail,
                                  uint8_t *form)
{
    size_t k;
    if ((k = repr_string_span(t, i, avail)) != 0)
        *form = FORM_MEMBER;
    else if ((k = quoted_tail(t, avail, '\'')) != 0 ||
             (k = quoted_span(t - i, i, hdr, avail, '\'')) != 0)
        *form = FORM_QUOTED;
    return k;
}

/* joined_field() for a token that holds a quote: out of line, few tokens do. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static size_t quoted_field(const logtk_slice *t, size_t i, size_t hdr, size_t avail,
                           const char **quote, int *inside, uint8_t *form)
{
    size_t k;
    const int after_name = t->ptr[0] == '"' && after_member_name(t - i, i);
    if (i > hdr && t->ptr[0] == '"' && !after_name &&
        ((k = quoted_tail(t, avail, '"')) != 0 || (k = quoted_span(t - i, i, hdr, avail, '"')) != 0))
        *form = FORM_QUOTED;
    else if ((k = keyed_span(t, avail, after_name, inside)) != 0)
        *form = after_name ? FORM_MEMBER : FORM_KEYED;
    *quote = quote_after(t, k ? k : 1, avail);
    return k;
}

/* Whether the line's tokens in[0..n) hold a '[' after a '=' (joined_field's key_brackets). */
static int line_key_brackets(const logtk_slice *in, size_t n)
{
    if (n == 0)
        return 0;
    const char *s = in[0].ptr, *end = in[n - 1].ptr + in[n - 1].len;
    for (const char *b; s < end && (b = memchr(s, '[', (size_t)(end - s))) != NULL; s = b + 1)
        if (b > in[0].ptr && b[-1] == '=')
            return 1;
    return 0;
}

/* The first '"' of the line's tokens in[0..n), or NULL (joined_field's quote). */
static const char *first_quote(const logtk_slice *in, size_t n)
{
    if (n == 0)
        return NULL;
    const char *end = in[n - 1].ptr + in[n - 1].len;
    return memchr(in[0].ptr, '"', (size_t)(end - in[0].ptr));
}

/*
 * SQL_QUOTE when the line's tokens in[0..n) hold a '\'' that may open a
 * literal (not an apostrophe after a letter, digit or '_': "isn't"), else
 * SQL_NONE (sql_field's state).
 */
static unsigned line_sql_state(const logtk_slice *in, size_t n)
{
    if (n == 0)
        return SQL_NONE;
    const char *s = in[0].ptr, *end = in[n - 1].ptr + in[n - 1].len;
    for (const char *q; s < end && (q = memchr(s, '\'', (size_t)(end - s))) != NULL; s = q + 1)
        if (!is_apostrophe(in[0].ptr, (size_t)(q - in[0].ptr)))
            return SQL_QUOTE;
    return SQL_NONE;
}

/* The length of s[0..n) without the sentence punctuation (",", ".", ";", ":") ending it. */
FUSE_INLINE size_t without_sentence_end(const char *s, size_t n)
{
    return before_sentence_end(s, n, 0);
}


/*
 * A masked code symbol with its offset ("do_page_fault+<*>", see
 * symbol_prefix), maybe with sentence punctuation: the name of a function,
 * the event a stack frame reports.  A slot of such words is not promoted by
 * the count (the frames of a trace are different messages), and the "<*>"
 * in it does not make it read as a value.
 */
static int is_code_symbol(const char *s, size_t n) /* n: without_sentence_end() */
{
    /* "(gsignal+<*>)": in parentheses, as Xorg's backtraces print it, or
       after its file, as glibc's backtrace_symbols() does ("<*>(abort+<*>)") */
    if (n > 2 + LTK_WILDCARD_LEN && s[0] == '<' && is_wild_at(s, 0, n) && s[LTK_WILDCARD_LEN] == '(') {
        s += LTK_WILDCARD_LEN;
        n -= LTK_WILDCARD_LEN;
    }
    if (n > 2 && s[0] == '(' && s[n - 1] == ')') {
        s++;
        n -= 2;
    }
    if (n <= LTK_WILDCARD_LEN || !is_wild_at(s, n - LTK_WILDCARD_LEN, n))
        return 0; /* the common case, without scanning for the symbol */
    size_t k = symbol_prefix(s, n);
    return k > 0 && k + LTK_WILDCARD_LEN == n;
}

/*
 * A call with no arguments, "sleep()", "fpm_event_loop()", "Foo.init()":
 * a function's name, called.  Every ground truth keeps such a word
 * (Apache's "jk2_init()", Thunderbird's, Mac's, HealthApp's; 57 of them in
 * the full lists, none "<*>()"), and a slot of them names the code that
 * printed the line, a stack frame's function (PHP's slow log: "[0x7f68...]
 * slow_worker() /www/sleep.php:3"), a system call that failed ("connect()
 * failed", "recv() failed"): words of the message, like is_code_symbol()'s.
 */
static int is_empty_call(const char *s, size_t n) /* n: without_sentence_end() */
{
    if (FUSE_RULE_OFF(FUSE_RULE_CODE_SYMBOLS) || n < 3 || s[n - 1] != ')' || s[n - 2] != '(' ||
        !(is_letter(s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 1; i + 2 < n; i++)
        if (!is_alnum_byte(s[i]) && s[i] != '_' && s[i] != '.' && s[i] != ':' && s[i] != '$')
            return 0;
    return 1;
}

/*
 * A call with no arguments and what it returned, glued: "send_buffer():SUCCEED"
 * (Zabbix's "End of %s():%s" when a traced function returns).  The function
 * is code, as is_empty_call()'s; what follows the colon is its result.
 */
static int is_empty_call_result(const char *s, size_t n)
{
    const char *colon = memchr(s, ':', n);
    return colon && colon - s > 3 && colon[-1] == ')' && (size_t)(colon - s) + 1 < n &&
           is_empty_call(s, (size_t)(colon - s));
}

/*
 * A C function's name and its source line, as a debug macro prints where
 * it was called from: "iscsi_task_queue(1595)", "__cmd_done(1281)" (tgtd's
 * "%s(%d) ").  The name is spelled as C names are, with '_' joining words
 * ("hibernate_setup(" stays in Mac's ground truths), which tells it from a
 * process and its pid ("QQ(56543)", "SpotlightNetHelp(123)": the ground
 * truths' "<*>") and from "LOCAL(0)".  Code, like is_empty_call()'s.
 */
static int is_line_call(const char *s, size_t n) /* n: without_sentence_end() */
{
    if (FUSE_RULE_OFF(FUSE_RULE_CODE_SYMBOLS) || n < 6 || s[n - 1] != ')' ||
        !(is_letter(s[0]) || s[0] == '_'))
        return 0;
    size_t i = 1;
    int joined = 0;
    while (i < n && (is_alnum_byte(s[i]) || s[i] == '_')) {
        joined |= s[i] == '_' && is_letter(s[i - 1]);
        i++;
    }
    if (!joined || i + 2 >= n || s[i] != '(')
        return 0;
    /* the line as masked ("<*>", the word a slot's group sees) or printed */
    if (n - i - 2 == LTK_WILDCARD_LEN && is_wild_at(s, i + 1, n))
        return 1;
    for (size_t k = i + 1; k + 1 < n; k++)
        if (s[k] < '0' || s[k] > '9')
            return 0;
    return 1;
}

/*
 * The word s[0..n) opens the message a structured logger writes under its
 * message key (is_message_key): logfmt's "msg=starting", 'msg="request'
 * (the key opening the word), or a JSON line's whole message,
 * '{"level":"<*>","msg":"ready"}' (a member's quoted name after a '{' or
 * ','; a message the token only opens has a variable form that keeps it,
 * json_message_form).  The message's first word is its event, as a plain
 * line's first word is: a slot of such words is not promoted by count
 * ("msg=starting", "msg=ready" and "msg=stopping" are three messages with
 * the same keys).
 */
static int opens_message(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_KEY_VALUES) || n < 5)
        return 0;
    const char first = (char)(s[0] | 0x20); /* (nearly every word fails the first tests) */
    if (first == 'm' || first == 'e') /* "msg=", "event=", "message=" */
        return (s[3] == '=' && is_message_key(s, 3)) ||
               (n > 6 && s[5] == '=' && is_message_key(s, 5)) ||
               (n > 8 && s[7] == '=' && is_message_key(s, 7));
    if (s[0] != '{' && s[0] != '"' && s[0] != ',')
        return 0;
    int closes; /* (a message the token only opens: json_message_form) */
    return json_message_member(s, n, &closes) != SIZE_MAX && closes;
}

/*
 * A word naming a function with its class or namespace ("Device::stop",
 * "ns::Reader::next:"; see is_scoped_name): like a code symbol, the name is
 * the message's own code, so "[MT] Device::stop entered" and "[MT]
 * Device::start entered" are two messages however many such names a slot
 * shows (each names the function that printed it).
 */
static int is_scoped_word(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_SCOPED_SLOTS))
        return 0;
    for (const char *c = memchr(s, ':', n); c && c + 2 < s + n;
         c = memchr(c + 1, ':', (size_t)(s + n - c - 1)))
        if (scope_at(s, (size_t)(c - s), n))
            return 1;
    return 0;
}

/*
 * A word of letters ending in "ed" ("Started", "paused"), a verb's past
 * participle, or in "ing" in small letters ("starting", "scanning"), its
 * present one: the event a message reports ("job 5 starting", "job 5
 * exiting").  Not "LOOKING" or "FOLLOWING": in capitals, a constant's name,
 * a state (rule enum-slots).
 */
static int is_participle(const char *s, size_t n) /* n: without_sentence_end() */
{
    if (FUSE_RULE_OFF(FUSE_RULE_PARTICIPLES))
        return 0;
    /* the last letter first: the test nearly every word fails, so predicted */
    if (n < 4 || !(((s[n - 1] | 0x20) == 'd' && (s[n - 2] | 0x20) == 'e') ||
                   (s[n - 1] == 'g' && n >= 5 && s[n - 2] == 'n' && s[n - 3] == 'i')))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!is_letter(s[i]))
            return 0;
    return 1;
}

/*
 * The masked form of a numbered instance whose name name_prefix() kept: a
 * word of letters, '-' or '.', then "<*>" ("QQ.<*>" for "QQ.4711",
 * "jetty-<*>").
 */
static int is_numbered_form(const char *s, size_t n) /* n: without_sentence_end() */
{
    if (n < 6 || s[n - 1] != '>' || s[n - 2] != '*' || s[n - 3] != '<' ||
        (s[n - 4] != '.' && s[n - 4] != '-'))
        return 0;
    for (size_t i = 0; i < n - 4; i++)
        if (!is_letter(s[i]))
            return 0;
    return 1;
}

/*
 * A slot's word that names a numbered unit (is_unit_name: "en0", "awdl0",
 * "IRQ9", "IPV6"), a name that stays a word until a second one appears in
 * the slot (rule unit-slots, in group_takes_word); so does a numbered
 * instance of a named thing (is_numbered_form: "QQ.<*>", "core.<*>"): the
 * name is kept while it is the one the message names, and a slot that
 * shows two names, Mac's "Hit by torpedo! QQ.<*>" beside "NeteaseMusic.<*>"
 * (an application and its process id), prints names and numbers alike: a
 * variable at the second (rule numbered-slots), as the full-size ground
 * truth writes it, "<*>".
 */
static int is_slot_unit(const char *s, size_t n) /* n: without_sentence_end() */
{
    /* (in its parentheses or brackets too: the kernel's "EXT4-fs (loop0):") */
    if (n > 3 && ((s[0] == '(' && s[n - 1] == ')') || (s[0] == '[' && s[n - 1] == ']'))) {
        s++;
        n -= 2;
    }
    return (!FUSE_RULE_OFF(FUSE_RULE_UNIT_SLOTS) && is_unit_name(s, n)) ||
           (!FUSE_RULE_OFF(FUSE_RULE_NUMBERED_SLOTS) && is_numbered_form(s, n));
}

/*
 * Key of the sibling group "sequence with position pos free":
 * seq - salted(tok_hash[pos], pos) + salted(wf_hash[pos], pos) +
 * ltk_mix64(n) + 0x51 * (pos + 1), from the salted hashes made once per
 * line (salt_tok, salt_wf) and mix_n = ltk_mix64(n).  Snapshots keep
 * these keys: the formula must not change.
 */
FUSE_INLINE uint64_t sibling_key(uint64_t seq, uint64_t mix_n, uint64_t salt_tok,
                                 uint64_t salt_wf, size_t pos)
{
    return seq - salt_tok + salt_wf + mix_n + 0x51ULL * (pos + 1);
}

/*
 * Key of the prefix pool of position pos, given `prefix`, the sum of the
 * salted hashes of the line's words before pos (see join_pool), hdr the
 * message's first word.  A slot after two words of the message or more
 * pools the lines of every length: "auth failed on module private from
 * UNDETERMINED (<*>) for alice: password mismatch" and "... for carol: no
 * matching rule" print one field, users, whatever follows it (rsyncd's
 * three users a message, FreeRADIUS' "[alice/alicepwbad] (from client
 * ...)" beside "[eve/...]", Nagios' hosts).  After the first word alone
 * the line's length is part of the key: "Sending CONNACK to ..." and
 * "Sending PUBACK to ..." name the packet, a message each, and share only
 * a verb.  Snapshots keep these keys (a state saved before the lengths
 * were dropped has its pools after two words under the old keys: its
 * lines there start new pools).
 */
static uint64_t pool_key(uint64_t prefix, size_t pos, size_t n, size_t hdr)
{
    return ltk_mix64(prefix + 0xd6e8feb86659fd93ULL * (pos + 1) +
                     (pos >= hdr + 2 ? 0 : ltk_mix64(n + 7)));
}

/*
 * Links new group g (its position set) to the pool of the words before its
 * slot, creating the pool.  The first word (after the header) has no pool:
 * it is the event, and every line shares its empty prefix.  0, or -1 on no memory.
 */
static int join_pool(ltk_fuse_state *st, uint32_t g, uint64_t prefix, size_t n, size_t first_word)
{
    ltk_fuse_group *grp = ltk_fuse_group_at(st, g);
    if (grp->position <= first_word)
        return 0;
    uint64_t key = pool_key(prefix, grp->position, n, first_word);
    /* the pool made here, unmade when the key names one already: one probe */
    uint32_t made = ltk_fuse_new_pool(st);
    if (made == FUSE_NO_ID)
        return -1;
    int added;
    uint32_t *slot = ltk_u64map_emplace(&st->pools, key, made, &added);
    if (slot == NULL || !added)
        st->npools--; /* unmade: no key names it */
    if (slot == NULL)
        return -1;
    uint32_t k = added ? made : *slot; /* made: no wait for the slot just written */
    ltk_fuse_pool *pool = ltk_fuse_pool_at(st, k);
    grp->pool = k;
    grp->next_in_pool = pool->first_group;
    pool->first_group = g;
    return 0;
}

/*
 * Template `member` of a promoted group takes its slot: it is generalized at
 * each of the slot's places (one, or a twin's two or three), and waits to be
 * settled when that gave it a new text (see settle_template).
 */
static int take_slot(logtk_parser *p, ltk_fuse_state *st, uint32_t member, const size_t *at,
                     size_t places)
{
    uint32_t fresh_id = FUSE_NO_ID; /* the template a generalization left with a new text */
    for (size_t k = 0; k < places; k++) {
        int fresh;
        int rc = generalize(p, st, member, at[k], &fresh);
        if (rc != LOGTK_OK)
            return rc == LOGTK_ERR_NOMEM ? ltk_parser_error(p, rc, "out of memory") : rc;
        if (fresh)
            fresh_id = resolve(st, member);
        note_word_slot(p, st, resolve(st, member), at[k]); /* words varied there */
    }
    /* a template merged into another takes that one's place, settled already */
    uint32_t id = resolve(st, member);
    if (fresh_id != id)
        return LOGTK_OK;
    size_t k = 0;
    while (k < st->nunsettled && st->unsettled[k] != id)
        k++;
    if (k < st->nunsettled)
        return LOGTK_OK;
    if (ltk_array_reserve((void **)&st->unsettled, &st->unsettled_cap, st->nunsettled + 1,
                          sizeof *st->unsettled) != 0)
        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    st->unsettled[st->nunsettled++] = id;
    return LOGTK_OK;
}

/*
 * Whether the templates holding group grp's words show two words at each of
 * its places after the first (whose words are the group's values), or the
 * places' variable form was seen: two quoted words that vary together
 * (register_twin) are variables when both vary, while a pair whose second
 * word stayed ("token 'the' ... language 'en'", "token 'and' ... 'en'") is
 * one slot, its sibling group's.  A twin's places vary with its word.
 */
static int places_vary(logtk_parser *p, const ltk_fuse_state *st, const ltk_fuse_group *grp,
                       const size_t *at, size_t places)
{
    if (grp->varform_seen)
        return 1;
    size_t n0, n;
    const logtk_slice *t0 = ltk_tmpl_tokens(p, resolve(st, ltk_fuse_group_member(st, grp, 0)), &n0);
    for (size_t k = 1; k < places; k++) {
        uint32_t v = 1;
        for (; v < grp->nvalues; v++) {
            const logtk_slice *t =
                ltk_tmpl_tokens(p, resolve(st, ltk_fuse_group_member(st, grp, v)), &n);
            if (t && t0 && at[k] < n && at[k] < n0 &&
                (t[at[k]].len != t0[at[k]].len ||
                 memcmp(t[at[k]].ptr, t0[at[k]].ptr, t0[at[k]].len) != 0))
                break;
        }
        if (v == grp->nvalues)
            return 0;
    }
    return 1;
}

/* Marks group g's slot variable and generalizes the templates that hold its words. */
static int promote(logtk_parser *p, ltk_fuse_state *st, uint32_t g)
{
    ltk_fuse_group *grp = ltk_fuse_group_at(st, g);
    size_t at[3];
    const size_t places = group_places(grp->position, at);
    if (places > 1 && !places_vary(p, st, grp, at, places))
        return LOGTK_OK; /* (not yet: a later word may show it) */
    grp->promoted = 1;
    for (uint32_t v = 0; v < grp->nvalues; v++) {
        int rc = take_slot(p, st, ltk_fuse_group_member(st, grp, v), at, places);
        if (rc != LOGTK_OK)
            return rc;
    }
    return LOGTK_OK;
}

/*
 * A group one word short of `threshold` whose prefix pool holds
 * `threshold` words: its slot varies on its own, and the same slot after
 * the same words varies still more across the other endings of the
 * message (see the top comment).  Not for participles, as in the group
 * rule.
 */
static int pool_settles(const ltk_fuse_state *st, const ltk_fuse_group *grp)
{
    return !grp->promoted && grp->non_event &&
           (long)grp->nvalues + grp->varform_seen + 1 >= st->threshold;
}

/*
 * Adds what group g's line showed at its slot (word hash `word`, or the
 * variable form when `varform`) to g's pool.  When the pool reaches
 * `threshold` distinct words, every group of its chain that pool_settles()
 * is promoted (once per pool: later groups check themselves); past it,
 * only g is checked.
 */
static int pool_add(logtk_parser *p, ltk_fuse_state *st, uint32_t g, uint64_t word, int varform)
{
    ltk_fuse_pool *pool = ltk_fuse_pool_at(st, ltk_fuse_group_at(st, g)->pool);
    int grew = 0;
    if (varform) {
        grew = !pool->varform_seen;
        pool->varform_seen = 1;
    } else {
        uint32_t v = 0;
        while (v < pool->nvalues && ltk_fuse_slot_value(st, pool->value0, pool->more, v) != word)
            v++;
        if (v == pool->nvalues && v < FUSE_SLOT_VALUES) {
            if (ltk_fuse_pool_keep(st, pool, word) != 0)
                return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
            grew = 1;
        }
    }
    long count = (long)pool->nvalues + pool->varform_seen;
    if (count < st->threshold)
        return LOGTK_OK;
    if (grew && count == st->threshold) {
        for (uint32_t m = pool->first_group; m != FUSE_NO_ID; m = ltk_fuse_group_at(st, m)->next_in_pool)
            if (pool_settles(st, ltk_fuse_group_at(st, m))) {
                int rc = promote(p, st, m);
                if (rc != LOGTK_OK)
                    return rc;
            }
        return LOGTK_OK;
    }
    return pool_settles(st, ltk_fuse_group_at(st, g)) ? promote(p, st, g) : LOGTK_OK;
}

/*
 * An annotation printed after a value: a parenthesised token right after a
 * variable ("host:443 (IPv6) error ...") in a line that, without it, is a
 * sequence already known.  Such a word qualifies the value before it (its
 * kind, its protocol, its unit) and the message is the known one, printed
 * with that value longer; the ground truths put both in one template
 * ("<*> error ...", the "<*>" covering "host:443 (IPv6)"), and none of them
 * keeps "X <*> (w) Y" apart from "X <*> Y".  A parenthesised token that every
 * line of a message prints ("0x1 (n.zxid)") never meets a shorter sequence,
 * so it stays part of the message.  The known sequence must come first: a
 * line with the annotation seen before any line without it opens its own
 * template.  Returns the known sequence's template, else FUSE_NO_ID; rare
 * (slow path, a '(' token after a variable), O(n) per candidate.
 */
static uint32_t annotated_value(const ltk_fuse_state *st, uint64_t seq, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_ANNOTATION))
        return FUSE_NO_ID;
    for (size_t i = 1; i < n; i++) {
        const char *t = st->norm.data + st->tok_off[i];
        size_t len = st->tok_len[i];
        /* '(' first: one test that nearly every word fails, and so predicted
           (t[0] is readable even for an empty word: the buffer's slack) */
        if (t[0] != '(' || len < 3 || t[len - 1] != ')' || !st->tok_wild[i - 1] ||
            st->tok_wild[i] || memchr(t + 1, '(', len - 2) || memchr(t + 1, ')', len - 2))
            continue;
        /* the sequence without position i: later tokens move one place left */
        uint64_t h = seq - ltk_mix64(n + 1) + ltk_mix64(n) - salted(st->tok_hash[i], i);
        for (size_t k = i + 1; k < n; k++)
            h += salted(st->tok_hash[k], k - 1) - salted(st->tok_hash[k], k);
        uint32_t id = map_get(&st->exact, h);
        if (id != FUSE_NO_ID)
            return id;
    }
    return FUSE_NO_ID;
}

#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int learn_sequence(logtk_parser *p, ltk_fuse_state *st, const logtk_slice *in, size_t n,
                          size_t hdr, size_t asides, int quoted, const char *limit,
                          uint64_t fast_seq, uint32_t *template_id);
static int finish_text_tails(logtk_parser *p, ltk_fuse_state *st);
static int finish_transitions(logtk_parser *p, ltk_fuse_state *st);

/*
 * Keeps token `kept`'s masked form, st->norm.data[0..len), in the stash for
 * the masked elements learn_sequence() writes should the line miss the
 * table: FORM_STASHED, or FORM_MASK (masked again there) when the stash
 * cannot grow.
 */
static uint8_t stash_form(ltk_fuse_state *st, size_t kept, size_t len)
{
    st->stash_off[kept] = st->stash.len;
    st->stash_len[kept] = len;
    return ltk_strbuf_append(&st->stash, st->norm.data, len) == 0 ? FORM_STASHED : FORM_MASK;
}

/*
 * Where a list written with commas closes the line's n masked tokens
 * (st->tok_hash): its first "<*>," cell, after a word, the last cell a "<*>"
 * ("a, b, c"); n when the line closes otherwise.  One separator throughout:
 * "<*> <*> <*> <*>, <*>" is fields.  feed_tokens() and learn_masked() both
 * ask here, so that their sequences of one line agree.
 */
static inline size_t comma_list_from(const ltk_fuse_state *st, size_t n)
{
    const uint64_t wild_h = st->wild_dots[0];
    if (n < 2 || st->tok_hash[n - 1] != wild_h || st->tok_hash[n - 2] != st->wild_comma)
        return n;
    size_t from = n - 2;
    while (from > 0 && st->tok_hash[from - 1] == st->wild_comma)
        from--;
    return from > 0 && st->tok_hash[from - 1] != wild_h ? from : n;
}

/*
 * The number of letters opening token t when it is letters, then digits and
 * nothing else ("dadmin2", "CPU1"); 0 otherwise.
 */
static size_t numbered_name_letters(const logtk_slice *t)
{
    size_t k = 0;
    while (k < t->len && is_letter(t->ptr[k]))
        k++;
    if (k == 0 || k == t->len)
        return 0;
    for (size_t d = k; d < t->len; d++)
        if (t->ptr[d] < '0' || t->ptr[d] > '9')
            return 0;
    return k;
}

/*
 * Rule numbered-lists: two or more names closing the line that are the same
 * letters numbered ("failed to resolve data source name dadmin2 dadmin3
 * dadmin4", gmetad's; "enslaving eth0 eth1") list instances, values each,
 * though one such name alone is a device's or a unit's that the message
 * names and stays (is_unit_name: "link up on eth0").  Only a list closing
 * the line after a word of the message: a line that is nothing but the list
 * ("sda1 sda2 sda3 sda4", the kernel's partitions) has no other text to be
 * its template, and names inside a list of words ("aes sha1 sha2 hmac")
 * are words of it.  Tokens from..kept-1 of the line (no joined pairs: token
 * k is in[k]); their hashes become "<*>"'s, and *seq with them.  Returns
 * the list's first token, `kept` when there is none.  Reads the letters
 * only, not the digits, so lines of one shape fare alike.
 */
static size_t wild_numbered_list(ltk_fuse_state *st, const logtk_slice *in, size_t from,
                                 size_t kept, uint64_t *seq)
{
    const uint64_t wild_h = st->wild_dots[0];
    const size_t letters = numbered_name_letters(&in[kept - 1]);
    if (letters == 0 || st->tok_hash[kept - 1] == wild_h)
        return kept;
    size_t i = kept - 1;
    while (i > from && st->tok_hash[i - 1] != wild_h &&
           numbered_name_letters(&in[i - 1]) == letters &&
           memcmp(in[i - 1].ptr, in[kept - 1].ptr, letters) == 0)
        i--;
    if (kept - i < 2 || i == from || st->tok_hash[i - 1] == wild_h)
        return kept; /* one name; or no word of the message right before the list */
    for (size_t k = i; k < kept; k++) {
        *seq += salted(wild_h, k) - salted(st->tok_hash[k], k);
        st->tok_hash[k] = wild_h;
        st->tok_form[k] = FORM_WILD;
    }
    return i;
}

/* The whole of fuse_feed() for a line its shape did not answer; kept out of line, see there. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int feed_tokens(logtk_parser *p, ltk_fuse_state *st, const ltk_parse_line *line,
                       uint64_t line_shape, uint32_t *template_id)
{
    size_t n = line->ntokens;
    if (grow_scratch(st, n + 1) != 0)
        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");

    /*
     * 0. the line's header (header_length) is one "<*>", however many tokens
     * it spans: the line is seen from its last header token on, and that
     * token (position 0, hdr = 1) is never read, only hashed as "<*>".
     */
    const logtk_slice *in = line->tokens;
    size_t hdr = st->header_auto ? ltk_fuse_header_length(in, n) : 0;
    if (hdr) {
        in += hdr - 1;
        n -= hdr - 1;
        hdr = 1;
    }

    /* 1. hash every token's masked form, most straight from their bytes */
    const char *limit = line->masked.ptr + line->masked.len;
    const uint64_t wild_h = st->wild_dots[0];
    uint64_t seq = 0, seq_before_run = 0;
    size_t kept = 0, asides = 0; /* tokens hashed; pairs joined (quantity asides, bounds) */
    size_t run_from = SIZE_MAX;  /* first of the trailing whole-token variables */
    int kept_digit = 0;          /* some masked form holds a digit: the shape stands for the line only */
    ltk_fuse_kept kept_at = {0}; /* with those tokens' bytes (see ltk_fuse_digit_slot) */
    ltk_strbuf_clear(&st->stash);
    for (size_t i = 0; i < hdr; i++) {
        st->tok_hash[kept] = wild_h; /* (read back by hex_dump_from) */
        seq += salted(wild_h, kept++);
    }
    if (hdr)
        run_from = 0;
    const char *quote = first_quote(in, n); /* (joined_field: most lines hold none) */
    int inside = 0;                           /* the token opens inside a string (keyed_span) */
    unsigned sql = line_sql_state(in, n);     /* (sql_field: most lines hold no '\'') */
    const int key_brackets = line_key_brackets(in, n); /* (bracket_value_span) */
    const int quoted = quote != NULL || sql != SQL_NONE; /* (key_context: a member's name) */
    for (size_t i = hdr; i < n; i++) {
        const logtk_slice *t = &in[i];
        uint64_t h;
        uint8_t form = FORM_MASK;
        int tok_digit = 0;
        /* the masked bytes go to st->norm, with 8 bytes of slack for hash_padded */
        size_t masked_len = 0;
        uint8_t joined_form = FORM_MASK;
        const size_t span =
            joined_field(t, i, hdr, n - i, &quote, &inside, &sql, key_brackets, &joined_form);
        size_t read_len = t->len; /* the bytes masked: the token's, or the joined field's */
        if (span) {
            /* a date and time (and zone): one value, "<*>"; a quoted field
               closing the line: one token (mask_quoted() may write a blank
               more than MASKED_MAX per word); a key's quoted value */
            const logtk_slice one = joined(t, &t[span - 1]);
            read_len = one.len;
            if (one.len + 8 > st->norm.cap / 5 &&
                ltk_strbuf_reserve(&st->norm, MASKED_MAX(one.len) + one.len + 8) != 0)
                return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
            masked_len = joined_form == FORM_STAMP ? mask_timestamp(one.ptr, one.len, st->norm.data)
                         : joined_form == FORM_QUOTED
                             ? mask_quoted(one.ptr, one.len, st->norm.data)
                         : joined_form == FORM_MEMBER
                             ? mask_member_value(one.ptr, one.len, st->norm.data)
                         : joined_form == FORM_ARRAY
                             ? mask_array(one.ptr, one.len, st->norm.data)
                         : joined_form == FORM_SQL
                             ? mask_sql(one.ptr, one.len, st->norm.data)
                         : joined_form == FORM_BRACKET
                             ? mask_bracket_value(one.ptr, one.len, st->norm.data)
                             : mask_token(one.ptr, one.len, st->norm.data);
            i += span - 1;
            asides++;
        } else if (t->len > 0 && key_context(in, i, n, quoted)) {
            if (t->len + 8 > st->norm.cap / 4 &&
                ltk_strbuf_reserve(&st->norm, MASKED_MAX(t->len) + 8) != 0)
                return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
            masked_len = mask_in_context(in, i, n, st->norm.data);
        }
        if (masked_len) {
            /* a key's value or a joined field (rare): neither the quick hash's nor the memo's */
            h = hash_padded(st->norm.data, masked_len);
            form = stash_form(st, kept, masked_len);
            tok_digit = holds_digit(st->norm.data, masked_len) ||
                        holds_glued_digits(t->ptr, read_len);
        } else if (!quick_token_hash(t->ptr, t->len, limit, st->wild_dots, &h, &form, &tok_digit)) {
            logtk_slice one = *t;
            if (t->len > 1 && t->ptr[0] == '(' && i > 0 && i + 1 < n &&
                (is_quantity_aside(t, &t[1]) || is_spaced_path_aside(t, &t[1]))) {
                one = joined(t, &t[1]); /* "(1.2 KB)": one value, "(<*>)" */
                i++;
                asides++;
            } else if ((t->ptr[0] == '<' || t->ptr[0] == '>') && i + 1 < n &&
                       is_bound_quantity(t, &t[1])) { /* a bound opens with its sign */
                one = joined(t, &t[1]); /* "<1 sec": one value */
                i++;
                asides++;
            }
            uint64_t words[2 * FUSE_MEMO_WORDS];
            ltk_fuse_memo *slot = one.len == t->len ? memo_slot(st->memo, st->memo_slots, one.ptr,
                                                            one.len, limit, words)
                                                : NULL;
            if (slot && memo_holds(st, slot, one.len, words)) {
                h = slot->masked;
                tok_digit |= slot->kept_digit;
                st->memo_hits++;
            } else {
                if (one.len + 8 > st->norm.cap / 4 &&
                    ltk_strbuf_reserve(&st->norm, MASKED_MAX(one.len) + 8) != 0)
                    return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
                int by_value = 0;
                masked_len = mask_token_reading(one.ptr, one.len, st->norm.data, &by_value);
                h = hash_padded(st->norm.data, masked_len);
                form = stash_form(st, kept, masked_len);
                int digit = holds_digit(st->norm.data, masked_len) || by_value;
                tok_digit |= digit;
                if (slot == NULL) {
                    if (st->memo == NULL)
                        memo_grow(st);
                } else if (ltk_fuse_bit(st->memo_filled, (size_t)(slot - st->memo)) &&
                           ++st->memo_evictions > st->memo_slots &&
                           st->memo_hits >= st->memo_evictions / 4 &&
                           st->memo_slots < FUSE_MEMO_MAX) {
                    /* tokens keep replacing others that come back: more room (tokens
                       that never come back, ids and counters, would only fill it) */
                    memo_grow(st);
                } else {
                    memo_keep(st, slot, one.len, words, h, st->norm.data, masked_len, digit);
                }
            }
        }
        for (const logtk_slice *d = t; tok_digit && d <= &in[i]; d++) /* a joined pair: both */
            ltk_fuse_kept_add(&kept_at, (size_t)(d - line->tokens));
        kept_digit |= tok_digit;
        if (h != wild_h) {
            run_from = SIZE_MAX;
        } else if (run_from == SIZE_MAX) {
            run_from = kept;
            seq_before_run = seq;
        }
        st->tok_hash[kept] = h; /* for a miss (used when no asides shifted the tokens) */
        st->tok_form[kept] = form;
        seq += salted(h, kept++);
    }
    /* (an empty line has no tokens, and `in` may be NULL then) */
    const logtk_slice *last = kept >= hdr + 3 ? &in[kept - 1] : NULL;
    if (last != NULL && !asides && st->tok_hash[kept - 1] != wild_h && last->len > 1 &&
        last->ptr[last->len - 1] >= '0' && last->ptr[last->len - 1] <= '9' &&
        is_letter(last->ptr[0]) && !FUSE_RULE_OFF(FUSE_RULE_NUMBERED_LISTS)) {
        /* (a name closing the line that holds a digit and stays: few lines) */
        const size_t list = wild_numbered_list(st, in, hdr, kept, &seq);
        if (list < kept) { /* the trailing run of variables now starts at the list or before */
            run_from = list;
            seq_before_run = seq;
            for (size_t k = list; k < kept; k++)
                seq_before_run -= salted(wild_h, k);
            while (run_from > 0 && st->tok_hash[run_from - 1] == wild_h)
                seq_before_run -= salted(wild_h, --run_from);
        }
    }
    size_t dump_from, dump_lead, dump_width, comma_from;
    /* the cells of a dump end where its text column starts, if one closes the line */
    const size_t cells_end = asides ? kept : dump_text_from(in, kept);
    const size_t last_len = cells_end ? in[cells_end - 1].len : 0; /* a cell: 2, 4 or 6 bytes */
    if (!asides && last_len - 2 <= 4 && !(last_len & 1) &&
        (dump_from = hex_dump_from(in, cells_end, st->tok_hash, wild_h, cells_end < kept,
                                   &dump_lead, &dump_width)) != 0 &&
        dump_text_fits(in, dump_from, cells_end, kept, dump_width)) {
        /* a hex dump: its word cells are values too ("<*>" for learn_sequence), and the
           dump with the variables before it is one list, as below; its text column
           too */
        for (size_t k = dump_lead; k < kept; k++)
            seq -= salted(st->tok_hash[k], k);
        for (size_t k = dump_from; k < kept; k++) {
            st->tok_hash[k] = wild_h;
            st->tok_form[k] = FORM_WILD;
        }
        seq += salted(wild_h, dump_lead);
        kept = dump_lead + 1;
    } else if (run_from != SIZE_MAX && run_from > 0 && kept - run_from >= FUSE_LIST_MIN) {
        seq = seq_before_run + salted(wild_h, run_from); /* a trailing list: one "<*>" */
        kept = run_from + 1;
    } else if (run_from == kept - 1 && kept >= FUSE_LIST_MIN &&
               kept - (comma_from = comma_list_from(st, kept)) >= FUSE_LIST_MIN) {
        for (size_t k = comma_from; k < kept; k++) /* a trailing list "a, b, c": one "<*>" */
            seq -= salted(st->tok_hash[k], k);
        seq += salted(wild_h, comma_from);
        kept = comma_from + 1;
    }
    seq += ltk_mix64(kept + 1);
    if (st->line_cache) { /* (without it every line comes this way) */
        if (!kept_digit)
            ltk_fuse_shape_keep(&st->shapes, line_shape, seq);
        else
            ltk_fuse_shape_keep_digits(&st->shapes, line_shape, line->tokens, &kept_at, seq);
    }

    /* 2. fast path: a sequence seen before */
    const uint64_t fast_seq = seq;
    uint32_t id = map_get(&st->exact, seq);
    if (id != FUSE_NO_ID) {
        *template_id = resolve(st, id);
        return LOGTK_OK;
    }
    return learn_sequence(p, st, in, n, hdr, asides, quoted, limit, fast_seq, template_id);
}

/*
 * The templates of the line's message printed with a closing list of
 * another length: given the line's tokens before the list (`prefix`) and
 * a list of `run` values ("<*>" each, or "<*>," each but the last when
 * `commas`: "a, b, c"; a list of FUSE_LIST_MIN or more counting as one),
 * the sequences of the same words before 1 to FUSE_LIST_MIN - 1 values
 * that the exact table knows, but this line's: separated as the line's
 * are, and a value alone also by commas once some line printed such a list
 * (st->comma_lists; a line's list of one says neither).  Writes them to kin
 * (room for 2 * FUSE_LIST_MIN); returns how many.
 */
static size_t list_kin(const ltk_fuse_state *st, size_t prefix, size_t run, int commas,
                       uint32_t *kin)
{
    const uint64_t wild_h = st->wild_dots[0];
    uint64_t before = 0;
    for (size_t i = 0; i < prefix; i++)
        before += st->salt_tok[i];
    size_t found = 0;
    const int last = commas || (run == 1 && st->comma_lists);
    for (int c = commas; c <= last; c++) {
        uint64_t seq = before; /* the words, then r - 1 cells */
        for (size_t r = 1; r < FUSE_LIST_MIN; r++) {
            const uint64_t value = salted(wild_h, prefix + r - 1);
            const uint64_t whole = seq + value;
            seq += c ? salted(st->wild_comma, prefix + r - 1) : value;
            if (r == run || (r == 1 && c > commas))
                continue; /* the line's own, or one value again */
            uint32_t id = map_get(&st->exact, whole + ltk_mix64(prefix + r + 1));
            if (id != FUSE_NO_ID)
                kin[found++] = id;
        }
    }
    return found;
}

/*
 * 1 when the masked word t[0..len) can be a cell of a list of values: it
 * holds a masked value ("<*>") with other text ("user:<*>:meta",
 * "heidi@<*>", "/var/<*>/x"), and neither a key's '=' nor a bracket or a
 * quote (a call, "mtask_execute(<*>)", or a field) nor a closing ':' or ';'
 * (a label).  A bare "<*>" is a cell too (2).  0 otherwise.
 */
static int list_cell(const char *t, size_t len)
{
    /* the bytes no cell holds, but in its "<*>"s */
    static const unsigned char not_in_cell[256] = {
        ['='] = 1, ['('] = 1, [')'] = 1, ['['] = 1, [']'] = 1, ['{'] = 1, ['}'] = 1,
        ['<'] = 1, ['>'] = 1, ['"'] = 1, ['\''] = 1, ['`'] = 1};
    if (is_wild_word(t, len))
        return 2;
    if (len <= LTK_WILDCARD_LEN || t[len - 1] == ':' || t[len - 1] == ';' ||
        !memchr(t, '<', len))
        return 0; /* (most words hold no masked value: one quick scan) */
    int masked = 0;
    for (size_t k = 0; k < len; k++) {
        if (is_wild_at(t, k, len)) {
            masked = 1;
            k += LTK_WILDCARD_LEN - 1;
        } else if (not_in_cell[(unsigned char)t[k]]) {
            return 0;
        }
    }
    return masked;
}

/* Word i of a template (`words`), or of the line (its masked word in st->norm) when NULL. */
FUSE_INLINE const char *cell_word(const ltk_fuse_state *st, const logtk_slice *words, size_t i,
                                  size_t *len)
{
    *len = words ? words[i].len : st->tok_len[i];
    return words ? words[i].ptr : st->norm.data + st->tok_off[i];
}

/*
 * Where a list of masked values closing the line starts (rule list-cells):
 * two or more cells (list_cell), separated by blanks or each but the last
 * closed by a comma (*commas), at least one of them more than a bare
 * "<*>", after a word of the message (a token without a masked value).
 * The words are `words` (a template's), or the line's masked words in
 * st->norm when NULL.  n when the line closes with no such list.
 */
FUSE_INLINE size_t cell_list_from(const ltk_fuse_state *st, const logtk_slice *words, size_t n,
                                  size_t hdr, int bare_ok, int *commas)
{
    size_t len;
    /* most lines close with a word: one look at the last token (no '<': no cell) */
    if (n == 0)
        return n;
    const char *last = cell_word(st, words, n - 1, &len);
    if (!memchr(last, '<', len))
        return n;
    size_t from = n;
    int sep = -1, masked = 0;
    for (; from > hdr; from--) {
        const char *t = cell_word(st, words, from - 1, &len);
        const int comma = len > 1 && t[len - 1] == ',';
        if (from == n ? comma : (sep >= 0 && comma != sep))
            break;
        const int cell = list_cell(t, len - comma);
        if (cell == 0)
            break;
        if (from < n)
            sep = comma;
        masked |= cell == 1;
    }
    *commas = sep == 1;
    if (from == hdr || n - from < 2 || !(masked || bare_ok))
        return n;
    /* a word of the message before the list, not only values and labels ("<*> <*>: <*> s:<*>") */
    for (size_t i = hdr; i < from; i++) {
        const char *t = cell_word(st, words, i, &len);
        if (!memchr(t, '<', len))
            return from;
    }
    return n;
}

/*
 * Where the "key=<*>" of the words (a template's `words`, or the line's
 * masked words when NULL: cell_word) is when plain words (neither a '<'
 * nor a '=') or bare "<*>" (a word of the value that varied on its own)
 * follow it to the end and a word of the message comes before it, past the
 * header; else n.  *plain: the tail's words, or 0 when one of them is "<*>"
 * (a value there, a word of the message or of the text: such a tail does
 * not show that the key holds text).  Rule text-tails (finish_text_tails).
 */
FUSE_INLINE size_t text_tail_key(const ltk_fuse_state *st, const logtk_slice *words, size_t n,
                                 size_t hdr, size_t *plain)
{
    /* the last token closing with "=<*>", by its last bytes alone (most templates hold none) */
    size_t k, len;
    const char *t;
    for (k = n - 1; k > hdr + 1; k--) {
        t = cell_word(st, words, k - 1, &len);
        if (len > LTK_WILDCARD_LEN && t[len - LTK_WILDCARD_LEN - 1] == '=' &&
            ltk_is_wildcard(t + len - LTK_WILDCARD_LEN, LTK_WILDCARD_LEN))
            break;
    }
    if (k <= hdr + 1)
        return n;
    k--;
    t = cell_word(st, words, k, &len);
    const size_t key = key_prefix(t, len);
    if (key == 0 || len != key + LTK_WILDCARD_LEN)
        return n;
    *plain = n - k - 1;
    for (size_t i = k + 1; i < n; i++) {
        t = cell_word(st, words, i, &len);
        if (ltk_is_wildcard(t, len))
            *plain = 0;
        else if (memchr(t, '<', len) || memchr(t, '=', len))
            return n;
    }
    for (size_t i = hdr; i < k; i++) {
        t = cell_word(st, words, i, &len);
        if (!memchr(t, '<', len))
            return k;
    }
    return n;
}

/*
 * The first value of a list closing the line stands for the whole list:
 * "<*>", a comma after it ("<*>," of "a, b, c") left out.  Its text is the
 * masked token's first bytes (st->norm).
 */
static void wild_list_head(ltk_fuse_state *st, size_t at)
{
    assert(st->tok_len[at] >= LTK_WILDCARD_LEN);
    st->tok_hash[at] = st->wild_dots[0];
    st->tok_len[at] = LTK_WILDCARD_LEN;
}

/* The sequence seq of the line's n words without its words from..n (the sequence of from words). */
static inline uint64_t without_words_from(const ltk_fuse_state *st, uint64_t seq, size_t from,
                                          size_t n)
{
    seq += ltk_mix64(from + 1) - ltk_mix64(n + 1);
    for (size_t i = from; i < n; i++)
        seq -= st->salt_tok[i];
    return seq;
}

/*
 * The sequence seq of the line's n words with its words from..n, a list
 * closing it, as its head's one "<*>" (wild_list_head; its text written
 * "<*>", as a cell's "session:<*>:x" is not, rule list-cells); the line is
 * then from + 1 words long.  Returned, not written through a pointer, so
 * that learn_masked() keeps its sequence in a register.
 */
static uint64_t fold_list(ltk_fuse_state *st, size_t from, size_t n, uint64_t seq)
{
    seq = without_words_from(st, seq, from, n) + ltk_mix64(from + 2) - ltk_mix64(from + 1);
    memcpy(st->norm.data + st->tok_off[from], LTK_WILDCARD, LTK_WILDCARD_LEN);
    wild_list_head(st, from);
    st->salt_tok[from] = salted(st->wild_dots[0], from);
    return seq + st->salt_tok[from];
}

/* The index of the lowest bit set in `bits` (not 0). */
static inline size_t lowest_bit(uint64_t bits)
{
    assert(bits != 0);
#if defined(__GNUC__)
    return (size_t)__builtin_ctzll(bits);
#else
    size_t i = 0;
    while (!(bits >> i & 1))
        i++;
    return i;
#endif
}

/*
 * Rule known-slots: a line whose sequence is new, and whose words no
 * promoted slot takes, that reads as a known template but for words at two
 * of that template's variables, is a line of that template when words
 * varied at both variables before (promoted groups made them: the
 * template's word_slots) and a word of the message besides them matches.
 * The sibling groups see one position at a time: a word at one of a
 * template's variables is taken by the group of the line without that word
 * ("status _ <*> <*>"; so one new word needs no rule), but a line with new
 * words at two of them ("status config-files libc++-dev:amd64 ..." beside
 * "status <*> <*> <*>") finds neither group, each keyed by the other new
 * word.  A variable that only printed masked values (a size, a path) takes
 * no word this way: npm's "notice Tarball Details" is not a line of
 * "notice <*> <*>" (a size and a file name), though the file slot took
 * words.  Returns the template, else FUSE_NO_ID.  Slow path only (a
 * sequence the exact table does not know): a probe per pair of positions
 * where a template of the line's length took words (slot_positions, among
 * the first 63 words; at most FUSE_SLOT_PAIRS of them).
 */
static uint32_t known_slots(ltk_fuse_state *st, uint64_t seq, size_t n, size_t hdr,
                            size_t constants)
{
    if (FUSE_RULE_OFF(FUSE_RULE_KNOWN_SLOTS) || constants < 3)
        return FUSE_NO_ID;
    /* where a template of this length took words, past the header (few places) */
    uint64_t at = *ltk_fuse_slots_of_length(st, n) & ~(ltk_fuse_slot_bit(hdr) - 1);
    uint64_t change[FUSE_SLOT_PAIRS]; /* per such word: the sequence's change as a variable */
    size_t pos[FUSE_SLOT_PAIRS];      /* per such word: its position */
    size_t ncand = 0;
    for (; at != 0 && ncand < FUSE_SLOT_PAIRS; at &= at - 1) {
        const size_t i = lowest_bit(at);
        /* a word of the line there, not its variable form already */
        if (i >= n || st->tok_wild[i] || st->wf_hash[i] == st->tok_hash[i])
            continue;
        pos[ncand] = i;
        change[ncand++] = st->salt_wf[i] - st->salt_tok[i];
    }
    for (size_t a = 0; a + 1 < ncand; a++) {
        const uint64_t one = seq + change[a];
        for (size_t b = a + 1; b < ncand; b++) {
            const uint64_t h = one + change[b];
            uint32_t id;
            if ((id = map_get(&st->by_text, h)) == FUSE_NO_ID)
                continue;
            /* both variables took words before: promoted groups made them */
            id = resolve(st, id);
            if ((st->word_slots[id] & (ltk_fuse_slot_bit(pos[a]) | ltk_fuse_slot_bit(pos[b]))) ==
                (ltk_fuse_slot_bit(pos[a]) | ltk_fuse_slot_bit(pos[b])))
                return id;
        }
    }
    return FUSE_NO_ID;
}

/*
 * The word s[0..n) is a function's name in a stack frame: the token after it
 * (at index `next` of the line's st->norm tokens, before `end`) opens a
 * parenthesis, its source location or its arguments, and a source location
 * follows within four tokens: valgrind's and sanitizers' "by 0x10923B:
 * leak_some (bug.c:6)", gdb's "#1 0x0000555555555164 in mid_a (x=0) at
 * deep.c:3".  The function is the frame's message, as in a Java frame
 * (holds_source_location), so a slot of such names is not made a variable
 * by its count: valgrind's report (on this machine) put every "by" frame in
 * "by <*>: <*> (bug.c:<*>)", gdb's backtraces every "in" frame in "in <*>
 * (x=<*>) at deep.c:<*>".  So is a name after "in" before its location,
 * a sanitizer's "#1 0x55d3 in main /tmp/bug.c:10:3" (source_path_dir keeps
 * the file).  A name before a parenthesis without a source location ("user
 * alice (uid=0)") is not a frame.
 */
static int names_frame_function(const ltk_fuse_state *st, const char *s, size_t n, size_t next,
                                size_t end)
{
    if (FUSE_RULE_OFF(FUSE_RULE_SOURCE_FILES) || n == 0 || (!is_letter(s[0]) && s[0] != '_'))
        return 0;
    const char *after = st->norm.data + st->tok_off[next];
    /* a sanitizer's "in read_past <*>/bug.c:<*>": "in", the name, its location */
    const int in_frame = next >= 2 && st->tok_len[next - 2] == 2 &&
                         memcmp(st->norm.data + st->tok_off[next - 2], "in", 2) == 0;
    if (after[0] != '(' && !in_frame)
        return 0;
    /* a JavaScript frame, "at Socket.emit (node:events:524:28)", "at
       Foo.<anonymous> (/app/server.js:86:39)": "at", the name, its location
       in parentheses closed by its line (and column), whatever the file */
    const size_t after_len = st->tok_len[next];
    if (next >= 2 && st->tok_len[next - 2] == 2 &&
        memcmp(st->norm.data + st->tok_off[next - 2], "at", 2) == 0 && after_len > 5 &&
        after[after_len - 1] == ')' && is_wild_at(after, after_len - 4, after_len) &&
        after[after_len - 5] == ':') {
        for (size_t k = 0; k < n; k++)
            if (!is_key_byte(s[k]) && s[k] != '<' && s[k] != '>' && s[k] != '$')
                return 0;
        return 1;
    }
    for (size_t k = 0; k < n; k++)
        if (!is_key_byte(s[k]) && s[k] != ':' && s[k] != '~')
            return 0;
    if (in_frame && holds_source_location(after, st->tok_len[next]))
        return 1;
    if (after[0] != '(')
        return 0;
    for (size_t t = next; t < end && t < next + 4; t++)
        if (holds_source_location(st->norm.data + st->tok_off[t], st->tok_len[t]))
            return 1;
    return 0;
}

/*
 * Word i of the line closes a method's name that Ruby's backtrace quotes
 * after a source location: "base.rb:1099:in `invoke'", "base.rb:1696:in
 * `block in compile!'", "...:in `block (3 levels) in route!'".  The method
 * is the frame's message, as a Java frame's is (rule source-files): ten of
 * Sinatra's methods had made one "<*>/base.rb:<*>:in `<*>'".  The quote
 * opens at most five tokens before, right after the location's ":in".
 */
static int closes_ruby_frame(const ltk_fuse_state *st, size_t i, size_t hdr)
{
    if (FUSE_RULE_OFF(FUSE_RULE_SOURCE_FILES) || st->tok_len[i] < 2 ||
        st->norm.data[st->tok_off[i] + st->tok_len[i] - 1] != '\'')
        return 0;
    for (size_t j = i; j > hdr && j + 5 > i; j--) {
        const char *t = st->norm.data + st->tok_off[j];
        if (t[0] != '`')
            continue;
        const char *loc = st->norm.data + st->tok_off[j - 1];
        const size_t len = st->tok_len[j - 1];
        return len > 3 && memcmp(loc + len - 3, ":in", 3) == 0 &&
               holds_source_location(loc, len - 3);
    }
    return 0;
}

/*
 * The position of the line's only word after its header, n when it has
 * none or more than one: a token holding a letter, its other constants
 * punctuation around values ("<*>:", "(<*>)").  Such a word is the whole
 * message, so no count of words at its place makes it a variable: nginx's
 * "2026/12/05 01:13:01 [notice] 1862#1862: exiting" and "...: exit" are two
 * messages, not "<*>: <*>".  The ground truths agree: of their thousands of
 * templates, three hold no word (each a line printed once).  A level word
 * the header did not take is no message's word: npm's "9 verbose node
 * v20.20.2" and "... verbose exit 0" are two messages, not "verbose <*> <*>".
 */
__attribute__((noinline)) /* once a line, out of learn_masked()'s loops */
static size_t sole_word_at(const ltk_fuse_state *st, size_t hdr, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_SOLE_WORDS))
        return n;
    size_t at = n, second = n;
    for (size_t i = hdr; i < n; i++) {
        if (st->tok_wild[i])
            continue;
        const char *t = st->norm.data + st->tok_off[i];
        size_t k = 0;
        while (k < st->tok_len[i] && !is_letter(t[k]))
            k++;
        if (k == st->tok_len[i])
            continue;
        if (second != n)
            return n; /* a third word */
        if (at != n)
            second = i;
        else
            at = i;
    }
    if (at == n)
        return n;
    if (second != n) {
        /* two words: one of them a level the header did not take, which is no message's word */
        if (ltk_fuse_is_level_word(st->norm.data + st->tok_off[at], st->tok_len[at]))
            at = second;
        else if (!ltk_fuse_is_level_word(st->norm.data + st->tok_off[second], st->tok_len[second]))
            return n;
    }
    /* a word of letters, maybe with sentence punctuation: not a value such as
       an option ("--addr"), a name in a code excerpt ("} text_key;"), a rule */
    const char *t = st->norm.data + st->tok_off[at];
    const size_t len = st->tok_len[at];
    size_t letters = 0;
    while (letters < len && is_letter(t[letters]))
        letters++;
    for (size_t k = letters; k < len; k++)
        if (t[k] != ',' && t[k] != '.' && t[k] != ';' && t[k] != ':')
            return n;
    return letters >= 2 ? at : n; /* (a letter alone is a mark, a tree's node "O") */
}

/*
 * The word names what the next one is, a user ("user", "User", "username:",
 * "principal"), in any case and maybe with its colon (rule user-slots).
 */
static int names_user(const char *s, size_t n)
{
    static const char *const names[] = {"user", "username", "principal"};
    if (FUSE_RULE_OFF(FUSE_RULE_USER_SLOTS))
        return 0;
    if (n > 1 && s[n - 1] == ':')
        n--;
    return is_word_of(s, n, names, sizeof names / sizeof names[0]);
}

/*
 * The name of a constant as code prints an enumeration's value: `least` or
 * more capitals and '_', a capital first ("CONTAINER_REMOTE_LAUNCH",
 * "LOOKING", "BACKUP", "DHCPREQUEST").  A slot of two of them shows one
 * field's values (rule enum-slots, is_enum_place: four or more, so that
 * "OK", "TCP" and "GET" stay words), and a transition's two places that
 * print them hold a machine's states ("from NEW to SCHEDULED", two or
 * more: finish_transitions).  n: without_sentence_end().
 */
static int is_enum_name_of(const char *s, size_t n, size_t least)
{
    if (FUSE_RULE_OFF(FUSE_RULE_ENUM_SLOTS) || n < least || s[0] < 'A' || s[0] > 'Z')
        return 0;
    for (size_t k = 1; k < n; k++)
        if ((s[k] < 'A' || s[k] > 'Z') && s[k] != '_')
            return 0;
    return 1;
}

/* is_enum_name_of() for a slot's word: four or more. */
static int is_enum_name(const char *s, size_t n)
{
    return is_enum_name_of(s, n, 4);
}

FUSE_INLINE int is_transition_word(const char *t, size_t len);

/*
 * Word i of the line may be an enumeration's value (rule enum-slots): two
 * words of the message or more before it (keys printed with their values,
 * "conn=<*>", are not counted, nor the header): the first words after
 * values only ("<*> HIGHMEM available." and "<*> LOWMEM available.", two
 * lines of every boot) and the object of a verb that opens the message
 * ("Sending SNAP", "Sending DIFF") are what the message is about.  Not a
 * place beside "to" or an arrow: rule transitions reads those as a pair.
 */
static int is_enum_place(const ltk_fuse_state *st, size_t i, size_t n, size_t hdr)
{
    size_t words = 0;
    for (size_t j = hdr; j < i && words < 2; j++)
        words += !st->tok_wild[j] &&
                 !ltk_holds_wildcard(st->norm.data + st->tok_off[j], st->tok_len[j]);
    if (words < 2)
        return 0;
    return !is_transition_word(st->norm.data + st->tok_off[i - 1], st->tok_len[i - 1]) &&
           !(i + 1 < n && is_transition_word(st->norm.data + st->tok_off[i + 1], st->tok_len[i + 1]));
}

/*
 * Nonzero when the word is a key's name and its ':' ("maxRetry:",
 * "findtime:"), for a word right before a value that closes the line:
 * fail2ban's "maxRetry: 3" and "findtime: 600" are settings, one message
 * each, as the full lists keep "queue: <*>" and "status: <*>"; counted as
 * words, four keys made one "<*>: <*>" (rule key-names).  So is such a word
 * closing the line, without a dot: a key printed with an empty value
 * (xrdp's "Client supplied program: " and "... domain: " were one "Client
 * supplied <*>:").  A letter opens it, key bytes follow, one ':' closes it.
 */
static int names_closing_value(const char *s, size_t n)
{
    if (n < 3 || s[n - 1] != ':' || !is_letter(s[0]))
        return 0;
    for (size_t k = 1; k + 1 < n; k++)
        if (!is_key_byte(s[k]))
            return 0;
    return 1;
}

/*
 * A noun written for any count, "sink(s)", "entry(s)", "match(es)": what
 * a program counts ("0 sink(s) available." beside "0 source(s)
 * available.", PulseAudio's; "<*> file(s) copied"), the message's own word
 * as a unit is, so a slot of them is not made a variable by its count.
 */
static int is_counted_noun(const char *s, size_t n)
{
    if (n < 5 || s[n - 1] != ')' || !is_letter(s[0]))
        return 0;
    const size_t open = s[n - 3] == '(' ? n - 3 : s[n - 4] == '(' ? n - 4 : 0;
    if (open < 2 || !(s[n - 2] == 's' && (open == n - 3 || s[n - 3] == 'e')))
        return 0;
    for (size_t k = 0; k < open; k++)
        if (!is_letter(s[k]))
            return 0;
    return 1;
}

/*
 * Token i of the line, masked, is "(<*>)": a value's annotation in
 * parentheses, its size in units ("Bytes sent: 216342 (211.27 KB)", burp's
 * summary; a name before it names the value, as before a value closing the
 * line: names_closing_value).
 */
static int is_parenthesized_wildcard(const ltk_fuse_state *st, size_t i)
{
    const char *t = st->norm.data + st->tok_off[i];
    return st->tok_len[i] == LTK_WILDCARD_LEN + 2 && t[0] == '(' &&
           ltk_is_wildcard(t + 1, LTK_WILDCARD_LEN) && t[LTK_WILDCARD_LEN + 1] == ')';
}

/*
 * Group g takes word i of the line (learn_masked's registration, template
 * `id`): its evidence about the slot (the word tests of step 3, on the word
 * and the word after it), and the decision: the group is promoted when the
 * slot now varies (see below), and the word joins the slot's prefix pool.
 * `varform`, `vars_only` and `marks` are what the caller asked of the word
 * already (vars_only -1 when not asked).  A sibling group and a twin group
 * (register_twin) decide alike.  One call, in learn_masked's loop over the
 * groups a line registers in, so that it is inlined with the word tests it
 * makes: called from two places, those were calls, and Mac's learning took
 * 3% more instructions.
 */
/* The words seen in a slot (boolean_word() of each, or-ed) are both words of one flag. */
FUSE_INLINE int is_boolean_slot(unsigned seen)
{
    return seen == 0x03u || seen == 0x0cu;
}

FUSE_INLINE int group_takes_word(logtk_parser *p, ltk_fuse_state *st, uint32_t g, size_t i,
                                 size_t n, size_t hdr, uint32_t id, int varform, int vars_only,
                                 unsigned marks)
{
    const char *word = st->norm.data + st->tok_off[i];
    const size_t word_len = st->tok_len[i];
    ltk_fuse_group *grp = ltk_fuse_group_at(st, g);
    if (grp->promoted)
        return LOGTK_OK;
    uint32_t v;
    int shapes_differ = 0;
    uint64_t pool_word; /* what this line adds to the slot's pool */
    int pool_varform = 0;
    /* the slot's own variable form ("<*>", "key=<*>", "<*>,") marks a variable field */
    if (varform && st->tok_hash[i] == st->wf_hash[i]) {
        grp->varform_seen = 1;
        pool_word = 0;
        pool_varform = 1;
    } else {
        /* any other word, including another shape of a variable ("<*>,<*>"), is a value */
        for (v = 0; v < grp->nvalues; v++)
            if (ltk_fuse_slot_value(st, grp->value0, grp->more, v) == st->tok_hash[i])
                break;
        if (v < grp->nvalues)
            return LOGTK_OK;
        /*
         * Full: a slot kept constant past `threshold` words (a first
         * word, participles) stops learning; memory stays bounded.
         */
        if (grp->nvalues == FUSE_SLOT_VALUES)
            return LOGTK_OK;
        /* a word that is neither "<*>" nor its own variable form: varform
           above asked only_variables(), and with it the word's marks */
        assert(vars_only >= 0);
        /* the word's length without its sentence punctuation, for the tests below */
        const size_t bare_len = without_sentence_end(word, word_len);
        /* code: the name of a function, or of the field a lone "=" or ":"
           after it assigns ("isBrowserDetect = <*>", lighttpd's "Doc-Root
           : <*>"); the ground truths keep a key even where its value is
           masked ("proxy : <*>", "ID : <*>" in the full lists), so "a =
           <*>" and "b = <*>" are two messages however many keys a slot
           shows */
        int code = ((marks & LTK_FUSE_HAS_OPEN) && is_code_symbol(word, bare_len)) ||
                   (bare_len > 2 && word[bare_len - 1] == ')' &&
                    (is_empty_call(word, bare_len) || is_line_call(word, bare_len))) ||
                   ((marks & LTK_FUSE_HAS_COLON) && (is_scoped_word(word, bare_len) ||
                                                     holds_source_location(word, word_len) ||
                                                     is_empty_call_result(word, bare_len))) ||
                   (!FUSE_RULE_OFF(FUSE_RULE_KEY_NAMES) && i + 1 < n &&
                    st->tok_len[i + 1] == 1 &&
                    (st->norm.data[st->tok_off[i + 1]] == '=' ||
                     st->norm.data[st->tok_off[i + 1]] == ':')) ||
                   (!FUSE_RULE_OFF(FUSE_RULE_KEY_NAMES) && i + 2 == n && st->tok_wild[i + 1] &&
                    names_closing_value(word, word_len)) ||
                   (!FUSE_RULE_OFF(FUSE_RULE_KEY_NAMES) && i + 3 == n && st->tok_wild[i + 1] &&
                    is_parenthesized_wildcard(st, i + 2) && names_closing_value(word, word_len)) ||
                   (!FUSE_RULE_OFF(FUSE_RULE_KEY_NAMES) && i + 1 == n && !(marks & LTK_FUSE_HAS_DOT) &&
                    names_closing_value(word, word_len)) ||
                   (i + 1 < n && names_frame_function(st, word, bare_len, i + 1, n)) ||
                   is_counted_noun(word, bare_len) ||
                   (i > hdr && closes_ruby_frame(st, i, hdr)) ||
                   opens_message(word, word_len);
        /* a message's id is code, but one that varies with the same text
           after it numbers something else ("PROJ-1234: build started"):
           value-like, so that the first word's slot takes it */
        int like = ((marks & (LTK_FUSE_HAS_OPEN | LTK_FUSE_HAS_DOT)) &&
                    looks_like_value(word, word_len) && !code) ||
                   (word_len > 5 && (word[word_len - 1] == ':' || word[word_len - 1] == ']') &&
                    is_message_id(word, word_len, word[0] == '[', word_len - 1));
        int shape = vars_only;
        if (ltk_fuse_group_keep(st, grp, st->tok_hash[i], id) != 0)
            return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
        pool_word = st->tok_hash[i];
        /* a variables-only shape ("<*>,<*>") beside another value-like word */
        if (like && ((shape && grp->value_like) || grp->shape_seen))
            shapes_differ = 1;
        grp->value_like |= like;
        grp->shape_seen |= shape;
        grp->non_unit |= !is_size_unit(word, bare_len);
        grp->plain_word |= !like;
        if (!code && grp->dotted_names < 2 && (marks & LTK_FUSE_HAS_DOT) &&
            is_dotted_name(word, word_len))
            grp->dotted_names++; /* the word is new to the slot: distinct names */
        if (grp->quoted_words < 2 &&
            ((is_quoted_word(word, bare_len) && !(word[0] == '`' && code) &&
              !(i == hdr && is_all_between(word + 1, bare_len - 2, 'A', 'Z'))) ||
             ((i == hdr || word[0] == '[') && is_bracketed_name(word, bare_len))))
            grp->quoted_words++;
        grp->non_event |= !is_participle(word, bare_len) && !code;
        if (!grp->non_numbered) /* (it stays set: most slots' first word sets it) */
            grp->non_numbered = !is_slot_unit(word, bare_len);
        grp->booleans |= (uint8_t)(bare_len - 2 <= 1 ? boolean_word(word, bare_len) : FUSE_NOT_BOOLEAN);
        grp->non_constant |= !is_enum_name(word, bare_len);
    }
    /*
     * Promote at `threshold` distinct words, or as soon as a slot that
     * some line showed in its variable form (a masked value, "key=<*>")
     * holds another word: a field is a variable field whatever value it
     * prints, so "rhost=<*>" (an address) and "rhost=host.example.org"
     * are one template, and so are "user=<*>" (root, a value word) and
     * "user=guest" (rule `field-words`: the slot varies, so it is a
     * variable, though "guest" does not look like one); likewise "to
     * <*>," and "to LOCAL(<*>),".  The first word (the event, see the
     * threshold) and a slot of participles or code take only a word that
     * looks like a value (looks_like_value).  The first word is counted
     * when it printed a masked value too: "[root] FAIL LOGIN" (a value
     * word) makes the users of vsftpd's "[bob] FAIL LOGIN" a field, and
     * `threshold` of them a variable, as prosody's "hank has 3 items out
     * of 10000 limit" beside "admin has ...".  Words of another variable
     * form ("HTTPS" beside "SOCKS<*>") are another group: they wait for
     * the threshold.
     * A unit slot ("KB,") beside its variable form ("<*>,") is one
     * that varied elsewhere: lines never print a masked value where a
     * unit stands, but a merged shard's template does (its "93.0 B"
     * and "5.2 KB" lines made it "<*> <*>,"), so the fold of
     * logtk_parser_merge() reaches what one process reaches.  So is a
     * numbered unit ("gige7") beside "<*>", a shard's slot that showed
     * two of them (unit-slots).
     * A slot right after a word that names a user ("session opened for
     * user alice", "username: eve", "principal [bob]", names_user) holds
     * users: a variable at its second (rule user-slots).  A host has few
     * accounts, so such a slot often shows two or three, and each kept a
     * template where every ground truth writes "user <*>".
     * A slot that printed both words of a boolean ("Powered On" and
     * "Powered Off", "DND Enabled: YES" and "NO") is a variable (rule
     * booleans): a program prints a flag's value there, and the full-size
     * ground truth writes "Powered <*>" and "Enabled: <*>" (the 2k ones
     * keep the two apart).  Not the first word: "No such file" and "Yes"
     * are not one message's two values.
     * A slot that printed two constants' names ("EventType:
     * CONTAINER_REMOTE_LAUNCH" and "..._CLEANUP", "LOOKING (n.state)" and
     * "LEADING") prints an enumeration's value: a variable at the second
     * (rule enum-slots), as the full-size ground truths write "EventType:
     * <*>"; a state has few values, so such a slot seldom reaches the
     * threshold.  Where is_enum_place() says so.
     */
    int rc = LOGTK_OK;
    /* the first word counts its plain words once it printed a masked value (field-words) */
    const int counted = i != hdr || !grp->plain_word ||
                        (grp->varform_seen && !FUSE_RULE_OFF(FUSE_RULE_FIELD_WORDS));
    if (((long)grp->nvalues + grp->varform_seen >= st->threshold && counted && grp->non_event) ||
        (grp->varform_seen &&
         (grp->value_like || (grp->nvalues >= 1 && i != hdr && grp->non_event &&
                              !FUSE_RULE_OFF(FUSE_RULE_FIELD_WORDS)))) ||
        shapes_differ ||
        (grp->nvalues >= 2 && !grp->non_unit) ||
        (grp->dotted_names >= 2 && i != hdr && !FUSE_RULE_OFF(FUSE_RULE_DOTTED_SLOTS)) ||
        (grp->quoted_words && grp->quoted_words + grp->varform_seen >= 2) ||
        (grp->varform_seen && grp->nvalues >= 1 && !grp->non_unit) ||
        (grp->nvalues + grp->varform_seen >= 2 && !grp->non_numbered) ||
        (grp->nvalues >= 2 && i > hdr && grp->non_event &&
         names_user(st->norm.data + st->tok_off[i - 1], st->tok_len[i - 1])) ||
        (grp->nvalues == 2 && i > hdr && is_boolean_slot(grp->booleans)) ||
        (grp->nvalues == 2 && i > hdr && !grp->non_constant && is_enum_place(st, i, n, hdr)))
        rc = promote(p, st, g);
    /* the word joins the slot's prefix pool, which may settle groups one word short */
    if (rc == LOGTK_OK && grp->pool != FUSE_NO_ID)
        rc = pool_add(p, st, g, pool_word, pool_varform);
    return rc;
}

/*
 * A process's name and a bracket closing the token ("rowrite[<*>]:",
 * "gpfault[<*>]"): the kernel names a process so where it crashed and
 * again where its code was, "rowrite[21391]: segfault at ... in
 * rowrite[113c,...]", the name varying at both places (find_twins).
 */
FUSE_INLINE int is_process_tag_end(const char *t, size_t n)
{
    return n >= 4 && is_letter(t[0]) &&
           (t[n - 1] == ']' || (t[n - 1] == ':' && t[n - 2] == ']'));
}

/*
 * A word holding a '.' closed by a colon, a letter first ("modcpu.so:",
 * "alice.:"): an error chain names its subject so before the reason, and
 * the message printed it once already ("Cannot load modcpu.so metric
 * module: modcpu.so: cannot open ...", Python's exceptions repeating their
 * text, "Could not find user: alice.: ...UserNotFound: Could not find user:
 * alice."), the value varying at both places (find_twins).  Not every word
 * closed by a colon: keys and labels are most of them.
 */
FUSE_INLINE int is_dotted_colon_word(const char *t, size_t n)
{
    return n >= 4 && t[n - 1] == ':' && is_letter(t[0]) && memchr(t + 1, '.', n - 2) != NULL;
}


/* bytes around a word that are not the word: 1 opens, 2 closes (find_twins) */
static const uint8_t twin_edge[256] = {
    ['('] = 1, ['['] = 1, ['{'] = 1, ['`'] = 1, ['"'] = 3, ['\''] = 3,
    [')'] = 2, [']'] = 2, ['}'] = 2, [':'] = 2, [','] = 2, [';'] = 2, ['.'] = 2,
};

/*
 * A byte that glues a value to more of a token: BIND's "github.com/IN/A"
 * (the name, its class and type), prosody's "bob@chat.test/<*>" (an
 * account and its resource), InspIRCd's "frank@<*>" (a nick and its host).
 */
FUSE_INLINE int twin_glue(unsigned char c)
{
    return c == '/' || c == '@' || c == '#';
}

/*
 * Word j of the line is the bare word norm[from, from + len) glued to more
 * after a twin_glue() byte ("github.com/IN/A" for "(github.com):").  len 0
 * never matches.
 */
FUSE_INLINE int glued_copy(const ltk_fuse_state *st, size_t j, size_t from, size_t len)
{
    const char *t = st->norm.data + st->tok_off[j];
    return len > 0 && st->tok_len[j] > len + 1 && t[0] == st->norm.data[from] &&
           twin_glue((unsigned char)t[len]) && memcmp(t, st->norm.data + from, len) == 0;
}

/* Word j of the line is the bare word norm[from, from + len) and one closer ("alice." for "alice.:"). */
FUSE_INLINE int closed_copy(const ltk_fuse_state *st, size_t j, size_t from, size_t len)
{
    const char *t = st->norm.data + st->tok_off[j];
    return len > 0 && st->tok_len[j] == len + 1 && (twin_edge[(unsigned char)t[len]] & 2) &&
           t[0] == st->norm.data[from] && memcmp(t, st->norm.data + from, len) == 0;
}

/* One value printed at two or three places of a line (find_twins). */
typedef struct twin_set {
    uint64_t key;     /* its twin group's key */
    uint64_t general; /* the line's sequence with the places' variable forms */
    uint32_t code;    /* the group's position: FUSE_TWIN_GROUP and the places */
    unsigned marks;   /* ltk_fuse_word_marks() of the first place's word */
    uint8_t places;
    uint8_t at[3];
} twin_set;

#define FUSE_TWIN_SETS 4 /* twin sets of one line, at most */

/*
 * Fills twin set tw for the line's places at[0..places) (at[0] the word the
 * group takes): the line's sequence with the places' variable forms, the
 * group's position and key.
 */
static void fill_twin_set(const ltk_fuse_state *st, uint64_t seq, uint64_t mix_n, const size_t *at,
                          size_t places, twin_set *tw)
{
    tw->general = seq;
    tw->code = FUSE_TWIN_GROUP;
    for (size_t m = 0; m < places; m++) {
        tw->general += st->salt_wf[at[m]] - st->salt_tok[at[m]];
        tw->code |= (uint32_t)(at[m] + 1) << (8 * m);
        tw->at[m] = (uint8_t)at[m];
    }
    tw->places = (uint8_t)places;
    tw->key = tw->general + mix_n + 0x7477696e73ULL + ltk_mix64(tw->code);
    tw->marks = ltk_fuse_word_marks(st->norm.data + st->tok_off[at[0]], st->tok_len[at[0]]);
}

/*
 * The twin sets of a learned line (rule twins, see register_twin): a word in
 * brackets or quotes ("(github.com):", "[bob]") printed again at one or two
 * more places, as the same token, bare ("github.com") or in other brackets
 * or quotes (Syncthing's 'folder "docs" (docs)'), past the header
 * among the first 64 words; it holds a letter or a digit and no masked value
 * ('<'), and another constant anchors it.  A plain word printed twice
 * ("local: a -> a") is not looked for: a line without a bracketed word costs
 * a byte test a word, where comparing every word with every other cost Mac's
 * learning 2% more instructions, for its sentences' "the ... the".  Then
 * each two quoted words of the line in a row that are no twins are a pair
 * set ("in vhost 'shop' refused for user 'bob'"), as the twin group's
 * places vary together.  `bracketed`: bit i set when word i opens with a
 * bracket or a quote (the caller's pass over the words tells).  Returns how
 * many, at most FUSE_TWIN_SETS.
 */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static size_t find_twins(const ltk_fuse_state *st, uint64_t seq, size_t n, size_t hdr,
                         size_t constants, uint64_t bracketed, twin_set *twins)
{
    if (FUSE_RULE_OFF(FUSE_RULE_TWINS) || constants < 3 || hdr >= 64)
        return 0;
    const size_t end = n < 64 ? n : 64; /* (places fit a byte and the slot bits) */
    size_t anchor[FUSE_TWIN_SETS];      /* the bracketed words */
    uint64_t bare[FUSE_TWIN_SETS];      /* their hashes without the brackets */
    size_t glue_from[FUSE_TWIN_SETS];   /* the bare word's offset in st->norm, ... */
    size_t glue_len[FUSE_TWIN_SETS];    /* ... and length, for copies glued to more (0: none) */
    unsigned quoted = 0;                /* bit k: anchor k is one word in quotes */
    size_t anchors = 0;
    for (bracketed &= ~0ULL << hdr; bracketed != 0 && anchors < FUSE_TWIN_SETS;
         bracketed &= bracketed - 1) {
        const size_t i = lowest_bit(bracketed);
        const unsigned char *t = (const unsigned char *)st->norm.data + st->tok_off[i];
        if (st->tok_wild[i])
            continue;
        size_t a = 0, b = st->tok_len[i];
        while (a < b && (twin_edge[t[a]] & 1))
            a++;
        while (b > a && (twin_edge[t[b - 1]] & 2))
            b--;
        size_t k = a;
        while (k < b && !is_letter((char)t[k]) && !(t[k] >= '0' && t[k] <= '9'))
            k++;
        if (k == b)
            continue; /* punctuation */
        size_t glue = 0; /* a name glued to masked values ("frank@<*>"): the name */
        if (memchr(t + a, '<', b - a)) {
            while (a + glue < b && !twin_glue(t[a + glue]) && t[a + glue] != '<' &&
                   t[a + glue] != '[')
                glue++; /* (a process's name before its id, "rowrite[<*>]:") */
            if (glue == 0 || a + glue == b || t[a + glue] == '<')
                continue; /* a word holding masked values */
            b = a + glue;
            glue = 0;
        } else {
            glue = b - a;
        }
        quoted |= (unsigned)is_quoted_word((const char *)t,
                                           without_sentence_end((const char *)t, st->tok_len[i]))
                  << anchors;
        anchor[anchors] = i;
        glue_from[anchors] = st->tok_off[i] + a;
        glue_len[anchors] = glue;
        /* tok_hash is the hash of a word's very bytes (hash_bytes) */
        bare[anchors++] = hash_bytes((const char *)t + a, b - a);
    }
    if (anchors == 0)
        return 0;
    const uint64_t mix_n = ltk_mix64(n);
    uint64_t done = 0; /* places already in a twin set */
    size_t found = 0;
    for (size_t k = 0; k < anchors; k++) {
        const size_t i = anchor[k];
        if (done >> i & 1)
            continue;
        size_t places = 0, at[4];
        uint64_t set = 0;
        uint64_t enclosed = 0; /* the other anchors holding the same word ("docs" and (docs)) */
        for (size_t m = k + 1; m < anchors; m++)
            if (bare[m] == bare[k])
                enclosed |= 1ULL << anchor[m];
        for (size_t j = hdr; j < end && places < 4; j++)
            if (j == i || (enclosed >> j & 1) ||
                (!st->tok_wild[j] && (st->tok_hash[j] == st->tok_hash[i] ||
                                      st->tok_hash[j] == bare[k] ||
                                      glued_copy(st, j, glue_from[k], glue_len[k]) ||
                                      closed_copy(st, j, glue_from[k], glue_len[k])))) {
                at[places++] = j;
                set |= 1ULL << j;
            }
        if (places < 2 || places > 3 || constants < places + 1)
            continue; /* alone, printed too often to be one value, or nothing else anchors it */
        done |= set;
        if (st->tok_hash[at[0]] == st->wf_hash[at[0]])
            continue; /* (its own variable form: "key=<*>") */
        fill_twin_set(st, seq, mix_n, at, places, &twins[found++]);
    }
    /* two quoted words that vary together: each pair of quoted words that
       are no twins, in order (see register_twin) */
    size_t last = SIZE_MAX; /* the quoted word before, when one */
    for (size_t k = 0; k < anchors && found < FUSE_TWIN_SETS; k++) {
        const size_t i = anchor[k];
        if ((done >> i & 1) || !(quoted >> k & 1) || st->tok_hash[i] == st->wf_hash[i])
            continue;
        if (last != SIZE_MAX) {
            const size_t pair[2] = {last, i};
            fill_twin_set(st, seq, mix_n, pair, 2, &twins[found++]);
        }
        last = i;
    }
    return found;
}

/*
 * Rule twins: one value printed at two or three places of a message varies
 * at all of them together.  BIND writes the name a client asked for twice,
 * "client @0x7f.. 127.0.0.1#5353 (github.com): query: github.com IN A",
 * Samba the user "[bob] -> [bob] -> [bob]", ProFTPD's extended log the
 * command '"PASV" ... PASV'.  A sibling group sees one place vary while the
 * rest of the line stays, and here the rest holds the other copy, so every
 * value had a template of its own.  A line whose word in brackets or quotes
 * stands again, bare or not or in other brackets or quotes or glued to
 * more after a '/', '@' or '#'
 * ("github.com/IN/A"; or the bracketed word is the copy glued so,
 * "frank (frank@<*>)"), at one or two more places (find_twins)
 * registers it, besides its sibling groups, in a twin group: the line with
 * those places in their variable forms, which lines of other values share.  It
 * decides as a sibling group does (group_takes_word) and, promoted, makes
 * every place a variable.  A word that a message repeats ("four character
 * codes must be four characters long") has a twin group that no other line
 * joins.  Two quoted words that vary together, each a value the code
 * inserted (RabbitMQ's "in vhost 'analytics' refused for user 'dave'",
 * every user in a host of its own), are such a set too, of two places: no
 * line shows either vary alone, so neither sibling group sees a second
 * word; it promotes when both places showed two words (places_vary).
 * Returns the twin set's group for the line's template to take a word in,
 * or FUSE_NO_ID when there is none to take (the group promoted: the
 * template took the slot here; no room left); LOGTK_ERR_* in *rc.
 */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static uint32_t register_twin(logtk_parser *p, ltk_fuse_state *st, const twin_set *tw,
                              uint32_t *template_id, int *rc)
{
    *rc = LOGTK_OK;
    uint32_t g = map_get(&st->groups, tw->key);
    if (g == FUSE_NO_ID) {
        if ((long)st->ngroups >= st->max_entries)
            return FUSE_NO_ID;
        uint32_t made = ltk_fuse_new_group(st);
        int added;
        uint32_t *slot =
            made == FUSE_NO_ID ? NULL : ltk_u64map_emplace(&st->groups, tw->key, made, &added);
        if (slot == NULL) {
            *rc = ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
            return FUSE_NO_ID;
        }
        assert(added); /* (looked up just above) */
        g = made;
        ltk_fuse_group_at(st, g)->position = tw->code;
        if (keep_twin_group(st, g) != 0) {
            *rc = ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
            return FUSE_NO_ID;
        }
    }
    ltk_fuse_group *grp = ltk_fuse_group_at(st, g);
    if (grp->promoted) {
        size_t at[3] = {tw->at[0], tw->at[1], tw->at[2]};
        *rc = take_slot(p, st, *template_id, at, tw->places);
        *template_id = resolve(st, *template_id);
        return FUSE_NO_ID;
    }
    /* the message printed masked values there: its template is that text
       (a template's text hash is its sequence's), as "key=<*>" is a slot's
       variable form (and see finish_twins) */
    if (!grp->varform_seen && map_get(&st->by_text, tw->general) != FUSE_NO_ID)
        grp->varform_seen = 1;
    return g;
}

/*
 * Rule text-tails, online: the line closes with `words` words (0 when one
 * is "<*>", text_tail_key) after its key at k; `family` is the sequence of
 * its words up to the key.  Returns 1 when that key holds text, so the
 * words are its value: a key known to (st->text_keys), or one this line
 * shows to, being the `threshold`-th line of a new sequence with a tail of
 * words alone after the same words and key, tails of two lengths or more
 * (the count finish_text_tails makes of templates; each line here is a new
 * sequence, so a new tail).  0 when not (yet), -1 on no memory.
 */
static int read_text_tail(ltk_fuse_state *st, size_t k, size_t words, uint64_t family)
{
    const char *t = st->norm.data + st->tok_off[k];
    const uint64_t key = hash_bytes(t, key_prefix(t, st->tok_len[k]));
    if (ltk_u64map_lookup(&st->text_keys, key) != NULL)
        return 1;
    if (words == 0)
        return 0;
    words = words < 0xff ? words : 0xff;
    /* packed: tails counted (to 255), the first one's words, whether another length came */
    uint32_t *slot = ltk_u64map_lookup(&st->text_tails, family);
    const uint32_t was = slot ? *slot : (uint32_t)words << 8;
    const uint32_t count = (was & 0xff) + ((was & 0xff) < 0xff);
    const uint32_t other = (was >> 16 & 1) | ((was >> 8 & 0xff) != words);
    const uint32_t now = count | (was & 0xff00) | other << 16;
    if (slot)
        *slot = now;
    else if ((long)st->text_tails.count < st->max_entries &&
             ltk_u64map_put(&st->text_tails, family, now) != 0)
        return -1;
    if ((long)count < st->threshold || !other)
        return 0;
    if (ltk_u64map_put(&st->text_keys, key, 1) != 0)
        return -1;
    st->text_keys_new = 1; /* the tails seen before join at the end of the line */
    return 1;
}

/*
 * Rule transitions: a state machine prints its states in pairs, "from NEW
 * to UNASSIGNED", "S_STARTING -> S_PENDING", "(Idle->Connect)" aside: two
 * places one word apart, "to" or an arrow between them.  The sibling groups
 * see one place at a time, and a pair of states is a line whose words vary
 * at both places at once, so each transition would keep a template.  Where
 * `threshold` or more templates are equal but for plain words at those two
 * places (their family) and some word printed at the first place is printed
 * at the second in another (a state left is a state entered), both places
 * are the values of one message.  Words that only happen to follow "to"
 * (a destination, a verb) are not states the first place prints.
 */

/* The word between a transition's two places: "to" or an arrow. */
FUSE_INLINE int is_transition_word(const char *t, size_t len)
{
    if (len == 2)
        return (t[0] == 't' && t[1] == 'o') || ((t[0] == '-' || t[0] == '=') && t[1] == '>');
    return len == 3 && memcmp(t, "-->", 3) == 0;
}

/* A place of a transition in a template: a plain word (no '<', *plain set) or a bare "<*>". */
FUSE_INLINE int transition_place(const char *t, size_t len, int *plain)
{
    *plain = len > 0 && memchr(t, '<', len) == NULL;
    return *plain || ltk_is_wildcard(t, len);
}

/* The same, for word i of the line being learned (a "<*>" promoted there included). */
FUSE_INLINE int line_transition_place(const ltk_fuse_state *st, size_t i, int *plain)
{
    if (st->tok_wild[i]) {
        *plain = 0;
        return st->tok_hash[i] == st->wild_dots[0];
    }
    return transition_place(st->norm.data + st->tok_off[i], st->tok_len[i], plain);
}

/* Word i of the line being learned becomes a bare "<*>"; returns seq changed so. */
static uint64_t transition_wild(ltk_fuse_state *st, size_t i, uint64_t seq)
{
    const uint64_t wild = salted(st->wild_dots[0], i);
    seq += wild - st->salt_tok[i];
    st->tok_hash[i] = st->wf_hash[i] = st->wild_dots[0];
    st->salt_tok[i] = st->salt_wf[i] = wild;
    st->wf_prefix[i] = st->wf_suffix[i] = 0;
    st->tok_wild[i] = 1;
    return seq;
}

/*
 * Rule transitions, online, on the line's words (sequence `seq`, its slots
 * promoted so far taken): a pair of places of a family shown to hold states
 * (FUSE_TRANSITION_PROVEN) becomes "<*>" at both.  With `count`, a family
 * not shown yet counts the line when it prints words at both places, and
 * at `threshold` lines, and at each doubling of that, asks for its
 * templates to be read (st->transitions_new, finish_transitions): a family
 * that never shows a state at both places costs a few reads.  Returns the
 * sequence, changed so; st->transition_folds is how many of the line's
 * constants became "<*>", or FUSE_FOLD_NOMEM on no memory.  (Returned, not
 * written through pointers, so that learn_masked() keeps its sequence and
 * count in registers.)
 */
static uint64_t transition_fold(ltk_fuse_state *st, uint64_t seq, size_t n, size_t hdr, int count)
{
    st->transition_folds = 0;
    for (size_t i = hdr; i + 2 < n; i++) {
        if (st->tok_len[i + 1] - 2u > 1u) /* (most words: not 2 or 3 bytes long) */
            continue;
        size_t len;
        const char *t = cell_word(st, NULL, i + 1, &len);
        int first, second;
        if (st->tok_wild[i + 1] || !is_transition_word(t, len) ||
            !line_transition_place(st, i, &first) || !line_transition_place(st, i + 2, &second) ||
            !(first || second))
            continue;
        const uint64_t family = seq - st->salt_tok[i] - st->salt_tok[i + 2] +
                                salted(st->wild_dots[0], i) + salted(st->wild_dots[0], i + 2);
        uint32_t *slot = ltk_u64map_lookup(&st->transitions, family);
        if (slot && (*slot & FUSE_TRANSITION_PROVEN)) {
            seq = transition_wild(st, i + 2, transition_wild(st, i, seq));
            st->transition_folds += (size_t)first + (size_t)second;
            i += 2;
            continue;
        }
        if (!count || !first || !second)
            continue;
        const uint32_t lines = slot ? (*slot & 0xffff) + ((*slot & 0xffff) < 0xffff) : 1;
        if (slot)
            *slot = lines;
        else if ((long)st->transitions.count < st->max_entries &&
                 ltk_u64map_put(&st->transitions, family, lines) != 0) {
            st->transition_folds = FUSE_FOLD_NOMEM;
            return seq;
        }
        const uint32_t steps = (uint32_t)st->threshold;
        if (lines >= steps && lines % steps == 0 && ((lines / steps) & (lines / steps - 1)) == 0)
            st->transitions_new = 1;
    }
    return seq;
}

/*
 * A constant that can anchor a slot's sibling group: a word of two letters
 * or more.  A lone letter or sign ("c", ":", "-") names no message: with no
 * other word beside it, the words of a slot are the message's own (varnishlog's
 * "<vxid> ReqMethod c GET", "<vxid> ReqURL c /": nineteen tags and one "c").
 */
static int is_anchor_word(const char *s, size_t n)
{
    if (FUSE_RULE_OFF(FUSE_RULE_ANCHORS))
        return 1;
    size_t letters = 0;
    for (size_t i = 0; i < n && letters < 2; i++)
        letters += is_letter(s[i]);
    return letters >= 2;
}

/*
 * The rest of learn_sequence(), from the line's masked words: st->norm
 * holds them (tok_off, tok_len, with 8 bytes of slack), tok_hash their
 * hashes; `n` and `hdr` are learn_sequence's, `fast_seq` feed_tokens'
 * sequence hash.  Finds or makes the line's template and registers its
 * words in their sibling groups.  With `settled` a template id, the words
 * are that template's (settle_template): each slot the promotion rounds find
 * promoted becomes the template's own variable, nothing is looked up or
 * made, and the words are registered for that template.
 */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int learn_masked(logtk_parser *p, ltk_fuse_state *st, size_t n, size_t hdr,
                        uint64_t fast_seq, uint32_t settled, uint32_t *template_id)
{
    const uint64_t wild_h = st->wild_dots[0];
    const char *base = st->norm.data;
    uint64_t seq;
    uint32_t id;

    /* a list of values closing the line is one "<*>", whatever its length:
       the trailing "<*>" tokens, or "<*>," ones and the last ("a, b, c") */
    size_t list_from = n;
    int commas = 0;
    if (n > 0 && st->tok_hash[n - 1] == wild_h) {
        list_from = comma_list_from(st, n);
        commas = list_from < n;
        if (commas && settled == FUSE_NO_ID)
            st->comma_lists = 1;
        if (!commas) {
            list_from = n - 1;
            while (list_from > 0 && st->tok_hash[list_from - 1] == wild_h)
                list_from--;
        }
    }
    if (settled == FUSE_NO_ID && list_from > 0 && n - list_from >= FUSE_LIST_MIN) {
        n = list_from + 1; /* (a template's text is already so) */
        wild_list_head(st, list_from);
    }
    seq = ltk_mix64(n + 1);
    for (size_t i = 0; i < n; i++) {
        st->salt_tok[i] = salted(st->tok_hash[i], i);
        seq += st->salt_tok[i];
    }
    /* the quick hashes are the hashes of these very bytes, or nothing would ever hit */
    assert(settled != FUSE_NO_ID || fast_seq == seq);
    (void)fast_seq;
    /* feed_tokens found no template for it in the exact table: no second look */
    const uint64_t seq_seen = seq;
    /*
     * Rule list-lengths: the same words closed a line with another number of
     * values, so the values are a list of any length, one "<*>" (as five or
     * more are at once); the templates made for the other lengths join the
     * line's below.  seq_seen, the sequence as printed, still leads to it.
     */
    uint32_t kin[2 * FUSE_LIST_MIN];
    size_t nkin = 0;
    if (settled == FUSE_NO_ID && list_from > 0 && list_from < n &&
        !FUSE_RULE_OFF(FUSE_RULE_LIST_LENGTHS)) {
        nkin = list_kin(st, list_from, n - list_from, commas, kin);
        if (nkin > 0 && n - list_from > 1) {
            seq = fold_list(st, list_from, n, seq);
            n = list_from + 1;
        }
    }
    /*
     * Rule list-cells: so are values of a list that the masks left words in
     * ("get user:<*>:meta cart:<*> feed:<*>:b" beside "get <*>", a client
     * fetching many keys at once; "for heidi@<*> oscar@<*>", an e-mail's
     * recipients).  No line shows one cell vary while the others stay, so
     * the sibling groups would keep a template per line.  With a template of
     * the same words closing with bare values, the list is one "<*>" (not
     * by five cells alone: "PendingReds:<*> ScheduledMaps:<*> ..." are keys
     * printed every time).
     */
    int cell_commas;
    size_t cells_from;
    if (settled == FUSE_NO_ID && nkin == 0 && !FUSE_RULE_OFF(FUSE_RULE_LIST_CELLS) &&
        !FUSE_RULE_OFF(FUSE_RULE_LIST_LENGTHS) &&
        (cells_from = cell_list_from(st, NULL, n, hdr, 0, &cell_commas)) < n) {
        if ((nkin = list_kin(st, cells_from, n - cells_from, cell_commas, kin)) > 0) {
            seq = fold_list(st, cells_from, n, seq);
            n = cells_from + 1;
        }
    }

    /*
     * Rule text-tails: words closing the line after a key that holds text
     * are its value ("subject=<*> budget notes" is "subject=<*>"), and the
     * line is its words up to the key.  seq_seen, the sequence as printed,
     * still leads to it.
     */
    size_t text_key, text_words;
    if (settled == FUSE_NO_ID && nkin == 0 && n >= 3 && !FUSE_RULE_OFF(FUSE_RULE_TEXT_TAILS) &&
        (text_key = text_tail_key(st, NULL, n, hdr, &text_words)) < n) {
        const uint64_t up_to_key = without_words_from(st, seq, text_key + 1, n);
        const int holds = read_text_tail(st, text_key, text_words, up_to_key);
        if (holds < 0)
            return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
        if (holds) {
            seq = up_to_key;
            n = text_key + 1;
        }
    }

    /* slow path: the variable form of every token */
    size_t constants = 0;
    const uint64_t mix_n = ltk_mix64(n); /* for sibling_key */
    uint64_t prefix_seen = 0;            /* for pool_key, as join_pool will make it */
    uint64_t bracketed = 0; /* words opening with a bracket or a quote, among the first 64 */
    for (size_t i = 0; i < n; i++) {
        const char *t = base + st->tok_off[i];
        if (i < 64 && ((twin_edge[(unsigned char)t[0]] & 1) || is_process_tag_end(t, st->tok_len[i]) ||
                       is_dotted_colon_word(t, st->tok_len[i])))
            bracketed |= 1ULL << i;
        st->tok_wild[i] = is_wild_word(t, st->tok_len[i]);
        if (word_variable_form(st, i, t, st->tok_len[i]) != 0)
            return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
        if (st->merge_places && n == st->merge_ntokens &&
            (st->merge_places & ltk_fuse_slot_bit(i)) && !FUSE_RULE_OFF(FUSE_RULE_COLON_KEYS) &&
            colon_key_length(t, st->tok_len[i], 1) != 0) {
            /* a merged shard's "action:<*>" where words varied: the slot's
               own variable form, as its lines' was (fuse_merge_places) */
            st->wf_prefix[i] = st->tok_len[i] - LTK_WILDCARD_LEN;
            st->wf_suffix[i] = 0;
            st->wf_hash[i] = st->tok_hash[i];
            st->salt_wf[i] = st->salt_tok[i];
        }
        constants += !st->tok_wild[i];
        st->sib_known[i] = 0; /* see sib_key; here, not a memset (a "rep stos" compiled for size) */
        /*
         * The group and pool slots the steps below probe for this word,
         * loaded now for all words at once: a line of new words misses the
         * cache at nearly every probe of those maps, and probed one by one
         * the misses would wait one after another.
         */
        if (i >= hdr) {
            ltk_u64map_prefetch(&st->groups,
                                sibling_key(seq, mix_n, st->salt_tok[i], st->salt_wf[i], i));
            if (i > hdr)
                ltk_u64map_prefetch(&st->pools, pool_key(prefix_seen, i, n, hdr));
        }
        prefix_seen += st->salt_tok[i];
    }

    /* 3. take promoted positions as variables, then register the line's siblings */
    int changed = 1, promoted_any = 0, transitions_read = 0;
    /* (a template settled takes one slot a round, at most n: no bound needed) */
    for (int round = 0; changed && (round < 64 || settled != FUSE_NO_ID); round++) {
        changed = 0;
        for (size_t i = 0; i < n && constants >= 2; i++) {
            if (st->tok_wild[i])
                continue;
            uint64_t key = sibling_key(seq, mix_n, st->salt_tok[i], st->salt_wf[i], i);
            ltk_u64map_spot spot;
            const uint32_t *found = ltk_u64map_lookup_spot(&st->groups, key, &spot);
            uint32_t g = found ? *found : FUSE_NO_ID;
            if (round == 0) {
                st->sib_key[i] = key;
                st->sib_group[i] = g;
                st->sib_spot[i] = spot;
                st->sib_known[i] = 1;
            }
            if (g != FUSE_NO_ID && ltk_fuse_group_at(st, g)->promoted) {
                const int own_form = st->wf_hash[i] == st->tok_hash[i]; /* "key=<*>" */
                promoted_any = 1;
                seq += st->salt_wf[i] - st->salt_tok[i];
                st->tok_hash[i] = st->wf_hash[i];
                st->salt_tok[i] = st->salt_wf[i];
                st->tok_wild[i] = 1;
                constants--;
                changed = 1;
                if (settled != FUSE_NO_ID && !own_form) {
                    /* a template settled takes the slot itself, and its new
                       sequence is read again from the start */
                    int rc = generalize(p, st, settled, i, NULL);
                    if (rc != LOGTK_OK)
                        return rc == LOGTK_ERR_NOMEM ? ltk_parser_error(p, rc, "out of memory")
                                                     : rc;
                    break;
                }
            }
        }
        /* rule transitions, once no slot is left to take: a pair of states is "<*>" */
        if (!changed && settled == FUSE_NO_ID && !FUSE_RULE_OFF(FUSE_RULE_TRANSITIONS)) {
            const uint64_t folded = transition_fold(st, seq, n, hdr, !transitions_read);
            transitions_read = 1;
            if (st->transition_folds == FUSE_FOLD_NOMEM)
                return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
            if (st->transition_folds > 0) {
                seq = folded;
                constants -= st->transition_folds;
                promoted_any = changed = 1; /* (the keys of the first round are stale) */
            }
        }
    }
    if (settled != FUSE_NO_ID) {
        /* a template's own words, with the slots its sequence has promoted
           taken (above): nothing to look up or make */
        id = resolve(st, settled);
        /* the header, read from the template's text (see settle_template) */
        size_t nt;
        const logtk_slice *t = ltk_tmpl_tokens(p, id, &nt);
        hdr = st->header_auto && t && nt && ltk_is_wildcard(t[0].ptr, t[0].len);
        /*
         * Read as a line of its text would be: when such a line goes to
         * another template (known-slots), the template joins that one
         * ("status not-installed <*> <none>", made from lines of new package
         * names, once "status <*> <*> <*>" took its masked lines).
         */
        uint32_t other = map_get(&st->exact, seq);
        if (other == FUSE_NO_ID)
            other = known_slots(st, seq, n, hdr, constants);
        if (other != FUSE_NO_ID && (other = resolve(st, other)) != id) {
            int rc = join_template(p, st, id, other);
            if (rc != LOGTK_OK)
                return rc == LOGTK_ERR_NOMEM ? ltk_parser_error(p, rc, "out of memory") : rc;
            id = other;
        }
        goto register_words;
    }
    id = map_get(&st->exact, seq);
    /*
     * Found: the sequence with its promoted slots is one a line was learned
     * as, and that line registered these very words in these very groups
     * (a word a group holds is skipped, and a group's decision was taken
     * when its state last changed), so this line has nothing to register.
     */
    const int registered = id != FUSE_NO_ID;
    if (id == FUSE_NO_ID && (id = annotated_value(st, seq, n)) != FUSE_NO_ID) {
        /* the known message with one value printed longer: its template, nothing to learn */
        id = resolve(st, id);
        if ((long)st->exact.count < st->max_entries &&
            (ltk_u64map_put(&st->exact, seq, id) != 0 ||
             ltk_u64map_put(&st->exact, seq_seen, id) != 0))
            return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
        *template_id = id;
        return LOGTK_OK;
    }
    /*
     * A known template but for words at two of its variables: its line.
     * Its words are registered all the same (below): a template made for
     * these words before that one existed ("status unpacked <*>:all <*>")
     * is generalized into it when their groups promote.
     */
    if (id == FUSE_NO_ID && (id = known_slots(st, seq, n, hdr, constants)) != FUSE_NO_ID &&
        (long)st->exact.count < st->max_entries && ltk_u64map_put(&st->exact, seq, id) != 0)
        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    if (id == FUSE_NO_ID) {
        /* room for every "key=<*>" first, so the buffer does not move under the slices */
        size_t forms = 0;
        for (size_t i = 0; i < n; i++)
            if (st->tok_wild[i])
                forms += st->wf_prefix[i] + LTK_WILDCARD_LEN + st->wf_suffix[i];
        ltk_strbuf_clear(&st->wform);
        if (ltk_strbuf_reserve(&st->wform, forms) != 0)
            return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
            if (st->tok_wild[i] && (st->wf_prefix[i] || st->wf_suffix[i])) {
                /* "key=<*>,": the key, the wildcard, the punctuation */
                const char *t = st->norm.data + st->tok_off[i];
                st->tok[i].ptr = st->wform.data + st->wform.len;
                st->tok[i].len = st->wf_prefix[i] + LTK_WILDCARD_LEN + st->wf_suffix[i];
                ltk_strbuf_append(&st->wform, t, st->wf_prefix[i]);
                ltk_strbuf_append(&st->wform, LTK_WILDCARD, LTK_WILDCARD_LEN);
                ltk_strbuf_append(&st->wform, t + st->tok_len[i] - st->wf_suffix[i],
                                    st->wf_suffix[i]);
            } else if (st->tok_wild[i]) {
                st->tok[i].ptr = LTK_WILDCARD;
                st->tok[i].len = LTK_WILDCARD_LEN;
            } else {
                st->tok[i].ptr = st->norm.data + st->tok_off[i];
                st->tok[i].len = st->tok_len[i];
            }
        }
        /*
         * the template's text hash: every token's hash is already the hash of
         * these very bytes (tok_hash, the variable forms' once promoted), so
         * it is the sequence hash itself, template_hash() without the rehash
         */
        uint64_t th = seq;
        id = map_get(&st->by_text, th);
        if (id == FUSE_NO_ID) {
            id = ltk_tmpl_create(p, st->tok, n);
            if (id == 0)
                return LOGTK_ERR_NOMEM;
            if (ltk_fuse_ensure_redirect(st, id) != 0 || ltk_u64map_put(&st->by_text, th, id) != 0)
                return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
        }
        if ((long)st->exact.count < st->max_entries && ltk_u64map_put(&st->exact, seq, id) != 0)
            return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    }
    id = resolve(st, id);
    if (seq != seq_seen && (long)st->exact.count < st->max_entries &&
        ltk_u64map_put(&st->exact, seq_seen, id) != 0)
        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < nkin; k++) { /* the other lengths' templates join the list's */
        uint32_t other = resolve(st, kin[k]);
        int rc = other == id ? LOGTK_OK : join_template(p, st, other, id);
        if (rc != LOGTK_OK)
            return rc == LOGTK_ERR_NOMEM ? ltk_parser_error(p, rc, "out of memory") : rc;
    }
    if (registered) {
        *template_id = id;
        return LOGTK_OK;
    }

register_words:;
    /* register this line's word at each position in its sibling group, then
       each word it prints twice in that word's twin group (rule twins) */
    twin_set twins[FUSE_TWIN_SETS];
    const size_t ntwins = bracketed ? find_twins(st, seq, n, hdr, constants, bracketed, twins) : 0;
    uint64_t prefix = 0; /* the line's words before position i, for the prefix pools */
    const size_t sole_word = sole_word_at(st, hdr, n);
    /* the constants that can anchor a slot's group (is_anchor_word), counted
       up to two: with two, every slot has another */
    size_t anchors = 0;
    for (size_t k = hdr; k < n && anchors < 2; k++)
        anchors += !st->tok_wild[k] && is_anchor_word(st->norm.data + st->tok_off[k], st->tok_len[k]);
    for (size_t step = 0; step < n + ntwins; step++) {
        size_t i = step;
        uint32_t g;
        /* the line shows the slot's variable form ("<*>", "key=<*>") */
        int varform = 0;
        int vars_only = -1; /* only_variables() of the word, once asked here */
        /* the word's '<', '.' and ':', once asked here: a word without them
           skips the per-byte scans for "<*>", inner dots and "::"
           (ltk_fuse_word_marks) */
        unsigned marks = 0;
        if (step >= n) {
            /* (one call of group_takes_word below: inlined once, as are the word tests it makes) */
            const twin_set *tw = &twins[step - n];
            int rc;
            if ((g = register_twin(p, st, tw, &id, &rc)) == FUSE_NO_ID) {
                if (rc != LOGTK_OK)
                    return rc;
                continue;
            }
            i = tw->at[0];
            vars_only = 0;
            marks = tw->marks;
        } else {
            const uint64_t before = prefix;
            prefix += st->salt_tok[i];
            const char *word = st->norm.data + st->tok_off[i];
            size_t word_len = st->tok_len[i];
            if (i < hdr || constants - !st->tok_wild[i] < 1 || i == sole_word ||
                (anchors < 2 && anchors - (!st->tok_wild[i] && is_anchor_word(word, word_len)) < 1))
                continue; /* the header, or no other word: nothing anchors the group */
            varform = st->tok_wild[i] || st->tok_hash[i] == st->wf_hash[i] ||
                          (vars_only = ((marks = ltk_fuse_word_marks(word, word_len)) &
                                        LTK_FUSE_HAS_OPEN) &&
                                       only_variables(word, word_len));
            /*
             * the key and group the first promotion round found, when nothing was
             * promoted since (the sequence is the same); a group once found stays,
             * while one absent then may have been made at this very key since
             */
            int known = !promoted_any && st->sib_known[i];
            uint64_t key = known ? st->sib_key[i]
                                 : sibling_key(seq, mix_n, st->salt_tok[i], st->salt_wf[i], i);
            g = known ? st->sib_group[i] : FUSE_NO_ID;
            if (g == FUSE_NO_ID && (long)st->ngroups >= st->max_entries) {
                if ((g = map_get(&st->groups, key)) == FUSE_NO_ID)
                    continue;
            } else if (g == FUSE_NO_ID) {
                /*
                 * found, or made here (unmade when the key names one): a key the
                 * first round looked up goes where that probe ended, without a
                 * second probe, when nothing took that slot since (sib_spot)
                 */
                uint32_t made = ltk_fuse_new_group(st);
                if (made == FUSE_NO_ID)
                    return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
                int added;
                uint32_t *slot =
                    known ? ltk_u64map_emplace_at(&st->groups, key, st->sib_spot[i], made, &added)
                          : ltk_u64map_emplace(&st->groups, key, made, &added);
                if (slot == NULL || !added)
                    st->ngroups--;
                if (slot == NULL)
                    return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
                g = added ? made : *slot; /* made: no wait for the slot just written */
                if (added) {
                    ltk_fuse_group_at(st, g)->position = (uint32_t)i;
                    if (join_pool(st, g, before, n, hdr) != 0)
                        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
                }
            }
        }
        int rc = group_takes_word(p, st, g, i, n, hdr, id, varform, vars_only, marks);
        if (rc != LOGTK_OK)
            return rc;
        id = resolve(st, id);
    }
    *template_id = resolve(st, id);
    return LOGTK_OK;
}

/*
 * A template that a promotion generalized has a new sequence, and it is
 * settled there as a line of that sequence would be: it takes the slots that
 * sequence has promoted already (learn_masked's rounds), then its words join
 * the sibling groups of the sequence, so that promotions there reach it too.
 * What a slot's promotion does to a template then does not depend on the
 * order in which its slots were promoted.  Without this, dpkg.log's "status
 * installed libssl3:<*> <*>", learned while only "status installed _ <*>"
 * had varied, stayed "status installed <*> <*>" beside "status <*> <*> <*>",
 * which the other packages reached when the state slot was promoted first
 * (tests/parser_cases/fuse.test has both orders).  A leading "<*>" is read as
 * the header when fuse looks for one (the template does not say which it
 * was; its text decides, so a saved state settles as a running one).
 */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int settle_template(logtk_parser *p, ltk_fuse_state *st, uint32_t id)
{
    id = resolve(st, id);
    size_t n;
    const logtk_slice *t = ltk_tmpl_tokens(p, id, &n);
    if (!t || n == 0)
        return LOGTK_OK;
    size_t room = 8;
    for (size_t i = 0; i < n; i++)
        room += t[i].len;
    ltk_strbuf_clear(&st->norm);
    if (grow_scratch(st, n + 1) != 0 || ltk_strbuf_reserve(&st->norm, room) != 0)
        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    char *o = st->norm.data;
    for (size_t i = 0; i < n; i++) {
        memcpy(o, t[i].ptr, t[i].len);
        st->tok_off[i] = (size_t)(o - st->norm.data);
        st->tok_len[i] = t[i].len;
        o += t[i].len;
    }
    memset(o, 0, 8); /* the slack hash_padded() reads */
    st->norm.len = (size_t)(o - st->norm.data);
    for (size_t i = 0; i < n; i++)
        st->tok_hash[i] = hash_padded(st->norm.data + st->tok_off[i], st->tok_len[i]);
    uint32_t same; /* the header: learn_masked() reads it once the template took its slots */
    return learn_masked(p, st, n, 0, 0, id, &same);
}

/* Settles the templates promotions generalized since (st->unsettled), and those they generalize. */
static int settle_unsettled(logtk_parser *p, ltk_fuse_state *st)
{
    int rc = LOGTK_OK;
    while (rc == LOGTK_OK && st->nunsettled > 0)
        rc = settle_template(p, st, st->unsettled[--st->nunsettled]);
    st->nunsettled = 0;
    return rc;
}

/* Runs `read`, a read of every template that *asked asks for, when the budget allows (learn_sequence). */
static int read_when_earned(logtk_parser *p, ltk_fuse_state *st, int *asked,
                            int (*read)(logtk_parser *, ltk_fuse_state *))
{
    if (!*asked || st->reads_spent > st->reads_earned)
        return LOGTK_OK; /* (none asked, or it waits: the flag stays) */
    *asked = 0;
    st->reads_spent += ltk_tmpl_count(p);
    return read(p, st);
}

/*
 * The rest of feed_tokens() for a sequence the exact table does not know
 * (Mac: one line in five): a call of its own, compiled for size (cold), so
 * that the code run for such a line, which then runs most of this file,
 * evicts less of the code every line runs (format, tokenizer, masks, fit).
 * `in`, `n`, `hdr`, `asides`, `quoted` (the line holds a '"'), `limit` and `fast_seq`
 * are feed_tokens'.
 * Writes the line's masked words for learn_masked(), then settles the
 * templates its promotions generalized.
 */
static int learn_sequence(logtk_parser *p, ltk_fuse_state *st, const logtk_slice *in, size_t n,
                          size_t hdr, size_t asides, int quoted, const char *limit,
                          uint64_t fast_seq, uint32_t *template_id)
{
    const uint64_t wild_h = st->wild_dots[0];

    /* the line's tokens, quantity asides and bounds joined (rare: most lines have none) */
    const logtk_slice *toks = in;
    if (asides) {
        const char *quote = quoted ? first_quote(in, n) : NULL; /* (as feed_tokens reads it) */
        int inside = 0;
        unsigned sql = line_sql_state(in, n);
        const int key_brackets = line_key_brackets(in, n);
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (i < hdr) {
                st->kept[k++] = in[i];
                continue;
            }
            const logtk_slice *t = &in[i];
            uint8_t form = FORM_MASK;
            const size_t span =
                joined_field(t, i, hdr, n - i, &quote, &inside, &sql, key_brackets, &form);
            /* the form feed_tokens() kept for the k-th token, which these
               joins make again (a masked one is in the stash, not masked
               twice); the joiner's own when it kept none (the memo's word) */
            if (st->tok_form[k] == FORM_MASK)
                st->tok_form[k] = form;
            if (span) {
                st->kept[k++] = joined(t, &t[span - 1]);
                i += span - 1;
                continue;
            }
            if ((t->len > 1 && t->ptr[0] == '(' && i > 0 && i + 1 < n &&
                 (is_quantity_aside(t, &t[1]) || is_spaced_path_aside(t, &t[1]))) ||
                (t->len > 1 && t->ptr[0] != '(' && i + 1 < n && is_bound_quantity(t, &t[1]))) {
                st->kept[k++] = joined(t, &t[1]);
                i++;
                continue;
            }
            st->kept[k++] = *t;
        }
        n = k;
        toks = st->kept;
    }

    /* the masked elements themselves, into the reused buffer (8 bytes of slack for hash_padded) */
    size_t room = 16;
    for (size_t i = 0; i < n; i++)
        room += MASKED_MAX(toks[i].len) + toks[i].len; /* (the blanks mask_quoted() may add) */
    ltk_strbuf_clear(&st->norm);
    if (ltk_strbuf_reserve(&st->norm, room) != 0)
        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    char *base = st->norm.data, *o = base;
    for (size_t i = 0; i < n; i++) {
        size_t len = LTK_WILDCARD_LEN;
        /* the forms the quick hash found (their hashes are in tok_hash), else mask_token() */
        uint8_t form = i < hdr ? FORM_WILD : st->tok_form[i];
        if (form == FORM_STAMP) {
            len = mask_timestamp(toks[i].ptr, toks[i].len, o);
            st->tok_hash[i] = hash_padded(o, len);
        } else if (form == FORM_QUOTED) {
            len = mask_quoted(toks[i].ptr, toks[i].len, o);
            st->tok_hash[i] = hash_padded(o, len);
        } else if (form == FORM_KEYED || form == FORM_MEMBER || form == FORM_ARRAY ||
                   form == FORM_SQL || form == FORM_BRACKET) {
            len = form == FORM_KEYED     ? mask_token(toks[i].ptr, toks[i].len, o)
                  : form == FORM_MEMBER  ? mask_member_value(toks[i].ptr, toks[i].len, o)
                  : form == FORM_ARRAY   ? mask_array(toks[i].ptr, toks[i].len, o)
                  : form == FORM_BRACKET ? mask_bracket_value(toks[i].ptr, toks[i].len, o)
                                         : mask_sql(toks[i].ptr, toks[i].len, o);
            st->tok_hash[i] = hash_padded(o, len);
        } else if (form == FORM_SELF) {
            len = toks[i].len;
            memcpy(o, toks[i].ptr, len);
        } else if (form == FORM_STASHED) {
            len = st->stash_len[i];
            memcpy(o, st->stash.data + st->stash_off[i], len);
        } else if (form >= FORM_WILD) {
            size_t dots = (size_t)(form - FORM_WILD);
            memcpy(o, LTK_WILDCARD "...", LTK_WILDCARD_LEN + dots);
            len += dots;
            if (i < hdr)
                st->tok_hash[i] = wild_h;
        } else {
            /* the memo's copy when it still holds the token, else the mask */
            uint64_t words[2 * FUSE_MEMO_WORDS];
            const ltk_fuse_memo *slot;
            if (toks[i].len > 0 && key_context(toks, i, n, quoted) &&
                (len = mask_in_context(toks, i, n, o)) != 0) {
                st->tok_hash[i] = hash_padded(o, len);
            } else if ((slot = memo_slot(st->memo, st->memo_slots, toks[i].ptr, toks[i].len, limit,
                                         words)) != NULL &&
                       memo_holds(st, slot, toks[i].len, words) && slot->form_len) {
                len = slot->form_len;
                memcpy(o, slot->form, len);
                st->tok_hash[i] = slot->masked;
            } else {
                len = mask_token(toks[i].ptr, toks[i].len, o);
                st->tok_hash[i] = hash_padded(o, len);
            }
        }
        st->tok_off[i] = (size_t)(o - base);
        st->tok_len[i] = len;
        o += len;
    }
    st->norm.len = (size_t)(o - base);
    int rc = learn_masked(p, st, n, hdr, fast_seq, FUSE_NO_ID, template_id);
    if (rc == LOGTK_OK)
        rc = settle_unsettled(p, st);
    /*
     * Reads of every template for a rule a line showed (text-tails,
     * transitions), within a budget: each line of a new sequence earns
     * FUSE_READ_WORK templates read, and a read waits (its flag stays set)
     * while more were read than earned.  Most logs show a rule a few times
     * and are read at once; a log that shows one for thousands of messages
     * (a first word that names each: "alpha moved A to B", "beta moved ...")
     * is read now and then instead of at each, in time linear in its lines,
     * not quadratic.  The end reads everything.
     */
    st->reads_earned += FUSE_READ_WORK;
    if (rc == LOGTK_OK) /* a line showed a key to hold text: the tails made before join */
        rc = read_when_earned(p, st, &st->text_keys_new, finish_text_tails);
    if (rc == LOGTK_OK) /* a family reached a step of its count: its templates are read */
        rc = read_when_earned(p, st, &st->transitions_new, finish_transitions);
    *template_id = resolve(st, *template_id);
    return rc;
}

/*
 * A line shaped like one seen before (its digits aside, fuse_shape.c) has
 * that line's sequence hash: when the exact table knows it, that is the
 * line's template, without masking or hashing a token.  The most common
 * case by far, so it is this small function and the rest is feed_tokens(),
 * whose many locals would cost every line their saving and restoring.
 */
static int feed_line(logtk_parser *p, ltk_fuse_state *st, const ltk_parse_line *line,
                     uint32_t *template_id)
{
    const uint64_t line_shape = ltk_line_shape(line->masked.ptr, line->masked.len);
    ltk_parser_note_shape(p, line_shape);
    ltk_fuse_shape_slot *shaped = NULL;
    /* the line with its tokens, asked for only past the shape cache (asking
       again costs nothing: the shared layer splits a line once) */
    ltk_parse_line split;
    if (st->line_cache && (shaped = ltk_fuse_shape_find(&st->shapes, line_shape)) == NULL) {
        split = *line;
        if (ltk_parser_line_tokens(p, &split) != LOGTK_OK)
            return LOGTK_ERR_NOMEM;
        shaped = ltk_fuse_shape_find_digits(&st->shapes, line_shape, split.tokens, split.ntokens);
    }
    if (shaped) {
        if (shaped->id == FUSE_NO_ID)
            shaped->id = map_get(&st->exact, shaped->seq);
        if (shaped->id != FUSE_NO_ID) {
            *template_id = resolve(st, shaped->id);
            return LOGTK_OK;
        }
    }
    split = *line;
    if (ltk_parser_line_tokens(p, &split) != LOGTK_OK)
        return LOGTK_ERR_NOMEM;
    return feed_tokens(p, st, &split, line_shape, template_id);
}

/*
 * A line; in a merge's fold, a shard's template with the places where its
 * words varied (fuse_merge_places), which the template it lands in takes.
 */
static int fuse_feed(logtk_parser *p, void *state, const ltk_parse_line *line,
                     uint32_t *template_id)
{
    ltk_fuse_state *st = state;
    int rc = feed_line(p, st, line, template_id);
    if (st->merge_places == 0)
        return rc;
    const uint64_t places = st->merge_places;
    size_t n;
    st->merge_places = 0;
    if (rc != LOGTK_OK || *template_id == 0)
        return rc;
    const uint32_t id = resolve(st, *template_id);
    /* a text read as other tokens than its shard's template: another reading's places */
    if (ltk_tmpl_tokens(p, id, &n) == NULL || n != st->merge_ntokens)
        return rc;
    return ltk_fuse_take_places(p, st, id, places) == 0
               ? rc
               : ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
}

/*
 * Rule twins, once more at the end: a twin group whose template, with the
 * variable forms at the group's places, is a template's text (its message
 * printed masked values there, "(<*>): query: <*>") saw its slot's variable
 * form, whichever came first, and decides with it.  Online, a line sees
 * that only when the masked template came before it (register_twin); the
 * lines of masked values never register in a twin group (two "<*>" are not
 * one value printed twice), so the other order is settled here, and a
 * shard's fold (logtk_parser_merge) reaches what one process reaches.
 */
static int finish_twins(logtk_parser *p, ltk_fuse_state *st)
{
    if (FUSE_RULE_OFF(FUSE_RULE_TWINS))
        return LOGTK_OK;
    for (size_t k = 0; k < st->ntwin_groups; k++) {
        const uint32_t g = st->twin_groups[k];
        ltk_fuse_group *grp = ltk_fuse_group_at(st, g);
        assert(grp->position & FUSE_TWIN_GROUP);
        if (grp->promoted || grp->varform_seen || grp->nvalues == 0)
            continue;
        size_t at[3];
        const size_t places = group_places(grp->position, at);
        const uint32_t id = resolve(st, ltk_fuse_group_member(st, grp, 0));
        size_t n;
        const logtk_slice *t = ltk_tmpl_tokens(p, id, &n);
        if (!t)
            continue;
        uint64_t general = template_hash(t, n);
        size_t m = 0;
        for (; m < places && at[m] < n && !ltk_is_wildcard(t[at[m]].ptr, t[at[m]].len); m++) {
            const logtk_slice *w = &t[at[m]];
            size_t keep, tail;
            uint64_t form;
            variable_form_bounds(w->ptr, w->len, &keep, &tail);
            if (wildform_hash(&st->wfscratch, w->ptr, w->len, keep, tail, &form) != 0)
                return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
            general += salted(form, at[m]) - salted(hash_bytes(w->ptr, w->len), at[m]);
        }
        if (m < places || map_get(&st->by_text, general) == FUSE_NO_ID)
            continue; /* (a template generalized at a place since: its text moved on) */
        grp->varform_seen = 1;
        if (grp->value_like || (grp->non_event && !FUSE_RULE_OFF(FUSE_RULE_FIELD_WORDS))) {
            int rc = promote(p, st, g);
            if (rc != LOGTK_OK)
                return rc;
        }
    }
    return LOGTK_OK;
}

/*
 * Rule list-cells, once more at the end: a template closing with a list of
 * masked values (cell_list_from), made before the template of its words
 * with bare values was, joins that one: the same number of bare values
 * ("gets <*> <*> <*>"), else one ("get <*>").  Online a line finds it only
 * once it exists.  Returns 1 when it joined, 0 when not, or LOGTK_ERR_*.
 */
static int finish_cells(logtk_parser *p, ltk_fuse_state *st, uint32_t id, const logtk_slice *t,
                        size_t n, size_t hdr)
{
    int commas;
    const size_t from = cell_list_from(st, t, n, hdr, 1, &commas);
    if (from == n)
        return 0;
    uint64_t words = 0;
    for (size_t i = 0; i < from; i++)
        words += salted(hash_bytes(t[i].ptr, t[i].len), i);
    uint64_t same = words + ltk_mix64(n + 1);
    for (size_t i = from; i < n; i++)
        same += salted(commas && i + 1 < n ? st->wild_comma : st->wild_dots[0], i);
    uint32_t other = map_get(&st->by_text, same);
    if (other == FUSE_NO_ID || resolve(st, other) == id) /* (a list of bare values: itself) */
        other = map_get(&st->by_text, words + salted(st->wild_dots[0], from) + ltk_mix64(from + 2));
    if (other == FUSE_NO_ID || (other = resolve(st, other)) == id)
        return 0;
    int rc = join_template(p, st, id, other);
    if (rc != LOGTK_OK)
        return rc == LOGTK_ERR_NOMEM ? ltk_parser_error(p, rc, "out of memory") : rc;
    return 1;
}

/*
 * Rule text-tails: a key's value printed last can hold blanks, as free text
 * does ("subject=Weekly budget notes", Dovecot's mail log; "text=subordinate
 * objects must be deleted first", slapd's results).  The sibling groups read such
 * a value as one word and a tail of words, and every line whose tail is new
 * keeps a template, since no line shows one word of it vary while the
 * others stay.  Where `threshold` or more templates share their words up to
 * a key whose value varied ("subject=<*>") and close with plain words after
 * it, tails of two lengths or more, that key holds text: every tail after it
 * (in those templates and in any other, of plain words or "<*>", a word of
 * the text that varied) is the value's, and joins the template of its words
 * up to the key, which is made when no line printed the value alone.  A
 * key's value that never varied, or a tail holding a masked value or a key
 * ("status=<*> (250 ok: queued as <*>)"), is not read so, and tails that
 * hold a "<*>" do not show that a key holds text ("id=<*> read <*> bytes"):
 * those are words of a message.  Here the templates are counted: when a
 * line shows a key to hold text (read_text_tail counts the lines), or at
 * the end, when every tail is known (templates whose tails varied word by
 * word count then).  The templates joined are then read as lines of their
 * new text (settled), so that a word those lines differed in besides the
 * text varies now.
 */
typedef struct fuse_text_tail {
    uint64_t prefix; /* template_hash() of the words up to the key */
    uint64_t key;    /* hash of the key's name and '=' ("subject=") */
    uint32_t id;
    uint32_t key_at; /* the key's position */
    uint32_t words;  /* the tail's words; 0 when one of them is "<*>" */
} fuse_text_tail;

static int text_tail_order(const void *a, const void *b)
{
    const fuse_text_tail *x = a, *y = b;
    if (x->prefix != y->prefix)
        return x->prefix < y->prefix ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * The template whose text hashes to `text` (template_hash()), made of the n
 * tokens `t` when none has it; resolved, in *id.  LOGTK_OK or an error.
 */
static int template_with_text(logtk_parser *p, ltk_fuse_state *st, uint64_t text,
                              const logtk_slice *t, size_t n, uint32_t *id)
{
    uint32_t to = map_get(&st->by_text, text);
    if (to == FUSE_NO_ID) {
        if ((to = ltk_tmpl_create(p, t, n)) == 0)
            return LOGTK_ERR_NOMEM;
        if (ltk_fuse_ensure_redirect(st, to) != 0 || ltk_u64map_put(&st->by_text, text, to) != 0)
            return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    }
    *id = resolve(st, to);
    return LOGTK_OK;
}

/* The template of `tail` joins the template of its words up to its key (made when none). */
static int join_text_tail(logtk_parser *p, ltk_fuse_state *st, const fuse_text_tail *tail)
{
    size_t n;
    uint32_t to;
    int rc = template_with_text(p, st, tail->prefix, ltk_tmpl_tokens(p, tail->id, &n),
                                tail->key_at + 1, &to);
    if (rc != LOGTK_OK)
        return rc;
    const uint32_t from = resolve(st, tail->id);
    rc = from == to ? LOGTK_OK : join_template(p, st, from, to);
    return rc == LOGTK_ERR_NOMEM ? ltk_parser_error(p, rc, "out of memory") : rc;
}

static int finish_text_tails(logtk_parser *p, ltk_fuse_state *st)
{
    const uint32_t count = ltk_tmpl_count(p);
    /* room for every template at once: no growing (a template has one tail at most) */
    fuse_text_tail *tails = malloc((count ? count : 1) * sizeof *tails);
    size_t ntails = 0;
    int rc = LOGTK_OK;
    if (tails == NULL)
        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    for (uint32_t id = 1; id <= count; id++) {
        size_t n;
        const logtk_slice *t = resolve(st, id) == id ? ltk_tmpl_tokens(p, id, &n) : NULL;
        if (!t || n < 3)
            continue;
        const size_t hdr = st->header_auto && ltk_is_wildcard(t[0].ptr, t[0].len);
        size_t words;
        const size_t key = text_tail_key(st, t, n, hdr, &words);
        if (key == n)
            continue;
        tails[ntails++] = (fuse_text_tail){
            template_hash(t, key + 1),
            hash_bytes(t[key].ptr, key_prefix(t[key].ptr, t[key].len)), id, (uint32_t)key,
            (uint32_t)words};
    }
    if (ntails > 1)
        qsort(tails, ntails, sizeof *tails, text_tail_order);
    /* the families that show a key to hold text: `threshold` tails of words
       alone or more, of two lengths (the keys lines showed are known already) */
    for (size_t a = 0, b; rc == LOGTK_OK && a < ntails; a = b) {
        long plain = 0;
        uint32_t first = 0, other = 0;
        for (b = a; b < ntails && tails[b].prefix == tails[a].prefix; b++) {
            const uint32_t words = tails[b].words;
            plain += words > 0;
            first = first ? first : words;
            other = words && words != first ? words : other;
        }
        if (plain >= st->threshold && other != 0 &&
            ltk_u64map_put(&st->text_keys, tails[a].key, 1) != 0)
            rc = ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    }
    /* then every tail after such a key, in those families and the others */
    for (size_t a = 0; rc == LOGTK_OK && st->text_keys.count > 0 && a < ntails; a++)
        if (ltk_u64map_lookup(&st->text_keys, tails[a].key) != NULL)
            rc = join_text_tail(p, st, &tails[a]);
    /*
     * The templates joined are read as lines of their new text: lines that
     * differed only in their text and at another word (a sender's domain,
     * "from=<*>@example.test") now show that word vary.
     */
    for (size_t a = 0; rc == LOGTK_OK && st->text_keys.count > 0 && a < ntails; a++) {
        if (a > 0 && tails[a].prefix == tails[a - 1].prefix)
            continue; /* (one template per family) */
        uint32_t to = map_get(&st->by_text, tails[a].prefix);
        if (to == FUSE_NO_ID || resolve(st, tails[a].id) != resolve(st, to))
            continue;
        if ((rc = settle_template(p, st, to)) == LOGTK_OK)
            rc = settle_unsettled(p, st);
    }
    free(tails);
    return rc;
}

/*
 * Rule transitions, on the templates (see transition_fold): at the end, and
 * when a family's count of lines reaches a step.  A family of `threshold`
 * templates or more with plain words at both places, where some word of
 * the first place is a word of the second, is shown to hold states; so is
 * a family whose template with "<*>" at both places exists (its lines
 * printed masked values there, or it is the template of a family a shard
 * showed, folded by logtk_parser_merge: the fold then reaches what one
 * process reaches).  Each template of such a family (those with a "<*>" at
 * one of the places too) joins the template with "<*>" at both, made when
 * none has that text, and that one is settled as a line of its text.
 */
typedef struct fuse_transition {
    uint64_t family;        /* template_hash() with "<*>" at both places */
    uint64_t first, second; /* hashes of the words there, 0 for a "<*>" */
    uint32_t id, at;        /* the template, its first place */
    int names;              /* its plain words there are constants' names (is_enum_name_of):
                               two pairs of such a family that chain are enough */
} fuse_transition;

static int transition_order(const void *a, const void *b)
{
    const fuse_transition *x = a, *y = b;
    if (x->family != y->family)
        return x->family < y->family ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int hash_order(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether some word of the first place of pairs[0..n) is a word of the second (words: scratch of 2n). */
static int transition_states(const fuse_transition *pairs, size_t n, uint64_t *words)
{
    size_t na = 0, nb = 0;
    for (size_t k = 0; k < n; k++)
        if (pairs[k].first && pairs[k].second) {
            words[na++] = pairs[k].first;
            words[n + nb++] = pairs[k].second;
        }
    qsort(words, na, sizeof *words, hash_order);
    qsort(words + n, nb, sizeof *words, hash_order);
    for (size_t a = 0, b = 0; a < na && b < nb;) {
        if (words[a] == words[n + b])
            return 1;
        if (words[a] < words[n + b])
            a++;
        else
            b++;
    }
    return 0;
}

/* The templates of a family shown to hold states join the one with "<*>" at both places. */
static int join_transitions(logtk_parser *p, ltk_fuse_state *st, const fuse_transition *pairs,
                            size_t n)
{
    size_t nt;
    const logtk_slice *t = ltk_tmpl_tokens(p, pairs[0].id, &nt);
    if (grow_scratch(st, nt + 1) != 0)
        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < nt; i++) /* (the text, should no template have it yet) */
        st->tok[i] = i == pairs[0].at || i == pairs[0].at + 2
                         ? (logtk_slice){LTK_WILDCARD, LTK_WILDCARD_LEN}
                         : t[i];
    uint32_t to;
    int rc = template_with_text(p, st, pairs[0].family, st->tok, nt, &to);
    for (size_t k = 0; rc == LOGTK_OK && k < n; k++) {
        if (resolve(st, pairs[k].id) != pairs[k].id || pairs[k].id == to)
            continue; /* (joined since, by a pair at other places) */
        if ((rc = join_template(p, st, pairs[k].id, to)) == LOGTK_ERR_NOMEM)
            return ltk_parser_error(p, rc, "out of memory");
    }
    if (rc == LOGTK_OK)
        rc = settle_template(p, st, to);
    return rc == LOGTK_OK ? settle_unsettled(p, st) : rc;
}

static int finish_transitions(logtk_parser *p, ltk_fuse_state *st)
{
    const uint32_t count = ltk_tmpl_count(p);
    fuse_transition *pairs = NULL;
    uint64_t *words = NULL;
    size_t npairs = 0, cap = 0;
    int rc = LOGTK_OK;
    for (uint32_t id = 1; id <= count; id++) {
        size_t n;
        const logtk_slice *t = resolve(st, id) == id ? ltk_tmpl_tokens(p, id, &n) : NULL;
        if (!t || n < 3)
            continue;
        const size_t hdr = st->header_auto && ltk_is_wildcard(t[0].ptr, t[0].len);
        uint64_t seq = 0;
        for (size_t i = hdr; i + 2 < n; i++) {
            int first, second;
            if (!is_transition_word(t[i + 1].ptr, t[i + 1].len) ||
                !transition_place(t[i].ptr, t[i].len, &first) ||
                !transition_place(t[i + 2].ptr, t[i + 2].len, &second) || !(first || second))
                continue;
            if (ltk_array_reserve((void **)&pairs, &cap, npairs + 1, sizeof *pairs) != 0) {
                free(pairs);
                return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
            }
            seq = seq ? seq : template_hash(t, n);
            const uint64_t a = hash_bytes(t[i].ptr, t[i].len);
            const uint64_t b = hash_bytes(t[i + 2].ptr, t[i + 2].len);
            pairs[npairs++] = (fuse_transition){
                seq - salted(a, i) - salted(b, i + 2) + salted(st->wild_dots[0], i) +
                    salted(st->wild_dots[0], i + 2),
                first ? a | 1 : 0, second ? b | 1 : 0, id, (uint32_t)i,
                (!first || is_enum_name_of(t[i].ptr, without_sentence_end(t[i].ptr, t[i].len), 2)) &&
                    (!second ||
                     is_enum_name_of(t[i + 2].ptr, without_sentence_end(t[i + 2].ptr, t[i + 2].len), 2))};
        }
    }
    if (npairs > 1)
        qsort(pairs, npairs, sizeof *pairs, transition_order);
    if (npairs > 0 && (words = malloc(2 * npairs * sizeof *words)) == NULL)
        rc = ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    for (size_t a = 0, b; rc == LOGTK_OK && a < npairs; a = b) {
        long both = 0;
        int names = 1; /* every pair of the family prints constants' names */
        for (b = a; b < npairs && pairs[b].family == pairs[a].family; b++) {
            both += pairs[b].first && pairs[b].second;
            names &= pairs[b].names;
        }
        uint32_t *slot = ltk_u64map_lookup(&st->transitions, pairs[a].family);
        if (!(slot && (*slot & FUSE_TRANSITION_PROVEN))) {
            const int valued = map_get(&st->by_text, pairs[a].family) != FUSE_NO_ID;
            if (!valued && (both < (names ? 2 : st->threshold) ||
                            !transition_states(&pairs[a], b - a, words)))
                continue;
            if (slot)
                *slot |= FUSE_TRANSITION_PROVEN;
            else if (ltk_u64map_put(&st->transitions, pairs[a].family, FUSE_TRANSITION_PROVEN) != 0)
                rc = ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
        }
        if (rc == LOGTK_OK)
            rc = join_transitions(p, st, &pairs[a], b - a);
    }
    free(words);
    free(pairs);
    return rc;
}

/*
 * Rule known-slots, once more at the end: a template made before its
 * message's slots had varied (unbound's "home.lan. static <*>
 * router.home.lan. DNSKEY IN", the second line of its zone, learned while
 * neither the name nor the type had varied) is read as a line of its text
 * would be now, and joins the template that known-slots finds for it
 * ("home.lan. static <*> <*>. <*> IN", made by the lines after it).  A line
 * that came later would have gone there; the end of the log is where the
 * evidence is complete.  Only templates of a length where some template
 * took words at two or more places are read; the probes are known_slots()'s.
 */
static int fuse_finish(logtk_parser *p, void *state)
{
    ltk_fuse_state *st = state;
    int rc = finish_twins(p, st);
    if (rc != LOGTK_OK)
        return rc;
    const uint32_t count = ltk_tmpl_count(p);
    for (uint32_t id = 1; id <= count; id++) {
        if (resolve(st, id) != id)
            continue;
        size_t n;
        const logtk_slice *t = ltk_tmpl_tokens(p, id, &n);
        if (!t || n < 3)
            continue;
        const size_t hdr = st->header_auto && ltk_is_wildcard(t[0].ptr, t[0].len);
        if (!FUSE_RULE_OFF(FUSE_RULE_LIST_CELLS) && !FUSE_RULE_OFF(FUSE_RULE_LIST_LENGTHS) &&
            (rc = finish_cells(p, st, id, t, n, hdr)) != 0) {
            if (rc < 0)
                return rc;
            continue;
        }
        if (FUSE_RULE_OFF(FUSE_RULE_KNOWN_SLOTS))
            continue;
        /* where templates of its length took words, past the header */
        const uint64_t places = *ltk_fuse_slots_of_length(st, n) & ~(ltk_fuse_slot_bit(hdr) - 1);
        if ((places & (places - 1)) == 0)
            continue; /* one place or none */
        size_t words = 0; /* words of the template at those places */
        for (size_t i = hdr; i < n && i < 64 && words < 2; i++)
            words += (places >> i & 1) && !is_wild_word(t[i].ptr, t[i].len);
        if (words < 2)
            continue;
        /* the template's words as learn_masked() reads a line's; the
           variable forms only at the places, the only ones known_slots() reads */
        if (grow_scratch(st, n + 1) != 0)
            return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
        uint64_t seq = ltk_mix64(n + 1);
        size_t constants = 0;
        for (size_t i = 0; i < n; i++) {
            st->tok_hash[i] = hash_bytes(t[i].ptr, t[i].len);
            st->salt_tok[i] = salted(st->tok_hash[i], i);
            seq += st->salt_tok[i];
            st->tok_wild[i] = is_wild_word(t[i].ptr, t[i].len);
            constants += !st->tok_wild[i];
            if (i < 64 && (places >> i & 1) && word_variable_form(st, i, t[i].ptr, t[i].len) != 0)
                return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
        }
        uint32_t other = known_slots(st, seq, n, hdr, constants);
        if (other != FUSE_NO_ID && (other = resolve(st, other)) != id) {
            rc = join_template(p, st, id, other);
            if (rc != LOGTK_OK)
                return rc == LOGTK_ERR_NOMEM ? ltk_parser_error(p, rc, "out of memory") : rc;
        }
    }
    if (!FUSE_RULE_OFF(FUSE_RULE_TEXT_TAILS) && (rc = finish_text_tails(p, st)) != LOGTK_OK)
        return rc;
    return FUSE_RULE_OFF(FUSE_RULE_TRANSITIONS) ? LOGTK_OK : finish_transitions(p, st);
}

/*
 * Merging (logtk_parser_merge): a shard's template says where its words
 * varied (word_slots), which its text cannot say, a "<*>" being a masked
 * value's as well.  The fold reads the text with them (a "name:<*>" there
 * is a key's variable form, rule colon-keys) and the template the text
 * lands in takes those places (fuse_feed), so that known-slots reads a
 * shard's template as one process reads the lines it came from:
 * ZooKeeper's "FOLLOWING (n.state) ... FOLLOWING (my state)", from a shard
 * that printed no other state, beside "<*> (n.state) ... <*> (my state)"
 * from shards where both places varied.
 */
static uint64_t fuse_merge_hint(logtk_parser *p, void *state, uint32_t id, uint32_t *ntokens)
{
    ltk_fuse_state *st = state;
    size_t n;
    id = resolve(st, id);
    if (id >= st->redirect_cap || ltk_tmpl_tokens(p, id, &n) == NULL || n > UINT32_MAX)
        return 0;
    *ntokens = (uint32_t)n;
    return st->word_slots[id];
}

static void fuse_merge_places(logtk_parser *p, void *state, uint32_t ntokens, uint64_t places)
{
    ltk_fuse_state *st = state;
    (void)p;
    st->merge_places = places; /* for the text fed next (fuse_feed) */
    st->merge_ntokens = ntokens;
}

const ltk_parser_algo ltk_algo_fuse = {
    .name = "fuse",
    .summary = "logtk's own online parser: digit/punctuation-aware masks, exact lookup, "
               "Brain-style sibling groups (default)",
    .online = 1,
    .tokens_on_demand = 1,
    .state_size = sizeof(ltk_fuse_state),
    .init = fuse_init,
    .destroy = ltk_fuse_destroy,
    .set_param = ltk_fuse_set_param,
    .feed = fuse_feed,
    .finish = fuse_finish,
    .save = ltk_fuse_save,
    .load = ltk_fuse_load,
    .merge_hint = fuse_merge_hint,
    .merge_places = fuse_merge_places,
};
