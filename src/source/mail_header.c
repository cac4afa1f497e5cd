/*
 * mail_header.c - header lines of a mail written (mail_header.h): the
 * quoting, encoding and folding are GMime's (internet_address_list_encode,
 * g_mime_utils_header_encode_text, g_mime_utils_unstructured_header_fold);
 * what is done here is only that no control character of a value reaches
 * them, and the one-time GMime initialisation for callers without the
 * CLI's.
 */
#include "source/mail_header.h"

#include <stdlib.h>
#include <string.h>

#include <gmime/gmime.h>

#include "util/error.h"

/* s with every control character (CR and LF among them) as a space, in
 * a malloc'd copy; NULL when out of memory. */
static char *one_line(const char *s)
{
	char *out = strdup(s ? s : "");

	for (char *p = out; p && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	return out;
}

/* GMime once (g_mime_init() counts its calls: the CLI's is not undone). */
static void mime_init(void)
{
	static int done;

	if (!done) {
		g_mime_init();
		done = 1;
	}
}

/* "name: " and list, folded, appended to sb. */
static int add_list(ss_strbuf *sb, const char *name, InternetAddressList *list)
{
	GString *s = g_string_new(NULL);
	int rc;

	g_string_append_printf(s, "%s: ", name);
	internet_address_list_encode(list, g_mime_format_options_get_default(), s);
	if (!s->len || s->str[s->len - 1] != '\n')
		g_string_append_c(s, '\n');
	rc = ss_strbuf_add(sb, s->str, s->len) ? ss_error_code(SS_ENOMEM, "out of memory") : 0;
	g_string_free(s, TRUE);
	return rc;
}

int ss_mail_header_mailbox(ss_strbuf *sb, const char *name, const char *display,
			   const char *email)
{
	char *d = one_line(display), *e = one_line(email);
	InternetAddressList *list;
	int rc;

	if (!d || !e) {
		free(d);
		free(e);
		return ss_error_code(SS_ENOMEM, "out of memory");
	}
	mime_init();
	list = internet_address_list_new();
	internet_address_list_add(list, internet_address_mailbox_new(d, e));
	rc = add_list(sb, name, list);
	g_object_unref(list);
	free(d);
	free(e);
	return rc;
}

int ss_mail_header_addresses(ss_strbuf *sb, const char *name, const char *text)
{
	char *t = one_line(text);
	InternetAddressList *list;
	int rc;

	if (!t)
		return ss_error_code(SS_ENOMEM, "out of memory");
	mime_init();
	list = internet_address_list_parse(NULL, t);
	if (!list || !internet_address_list_length(list))
		rc = ss_error_code(SS_EINVALID, "%s: '%s' is no address list", name, t);
	else
		rc = add_list(sb, name, list);
	if (list)
		g_object_unref(list);
	free(t);
	return rc;
}

int ss_mail_header_text(ss_strbuf *sb, const char *name, const char *text)
{
	GMimeFormatOptions *fo;
	char *t = one_line(text), *enc, *line, *folded;
	int rc;

	if (!t)
		return ss_error_code(SS_ENOMEM, "out of memory");
	mime_init();
	fo = g_mime_format_options_get_default();
	enc = g_mime_utils_header_encode_text(fo, t, "UTF-8");
	line = g_strdup_printf("%s: %s", name, enc ? enc : t);
	folded = g_mime_utils_unstructured_header_fold(NULL, fo, line);
	if (!folded) {
		rc = ss_error_code(SS_ENOMEM, "out of memory");
	} else {
		size_t len = strlen(folded);

		rc = ss_strbuf_add(sb, folded, len) ||
		     ((!len || folded[len - 1] != '\n') && ss_strbuf_addch(sb, '\n'))
			     ? ss_error_code(SS_ENOMEM, "out of memory") : 0;
	}
	g_free(folded);
	g_free(line);
	g_free(enc);
	free(t);
	return rc;
}
