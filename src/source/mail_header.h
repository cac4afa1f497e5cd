/*
 * mail_header.h - header lines of a mail this program writes (the FAILED
 * mails of run/failed_mail.c), made by GMime 3 (mail_header.c): a
 * display name quoted as RFC 5322 wants ("Ann, spy@evil.example"
 * <ann@example.org> stays one recipient), non-ASCII text as RFC 2047
 * encoded words, lines folded at 78 columns, and no CR or LF from a
 * value: every control character of a value becomes a space, so text
 * from a commit, a note or an imported file never starts a header of
 * its own.
 *
 * Each function appends one whole header, "Name: value\n" (continuation
 * lines starting with white space), to sb; 0, or < 0 with the message
 * set (SS_ENOMEM; SS_EINVALID for an address list that does not parse).
 * name is the program's ("To", "Subject"), written as given.
 */
#ifndef SS_SOURCE_MAIL_HEADER_H
#define SS_SOURCE_MAIL_HEADER_H

#include "util/strbuf.h"

/* One mailbox: display (may be NULL or empty) and email. */
int ss_mail_header_mailbox(ss_strbuf *sb, const char *name, const char *display,
			   const char *email);

/* An address list as a user writes it ("Tess <t@example.org>, list@x"). */
int ss_mail_header_addresses(ss_strbuf *sb, const char *name, const char *list);

/* Unstructured text (a Subject). */
int ss_mail_header_text(ss_strbuf *sb, const char *name, const char *text);

#endif
