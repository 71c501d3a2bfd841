// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Redaction: each class of pattern (IPv4 with its classes and /24 relations,
 * IPv6, MACs, secrets in command lines, URLs with credentials, learned host,
 * domain and user names), consistency and idempotence, no false positives on
 * version numbers and /proc text, the encoded views (JSON, Markdown, HTML),
 * and a staging directory rewritten whole: capture streams re-encoded so that
 * they load again, the mapping written once, mode 0600.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/capture.h"
#include "util/json_read.h"
#include "bundle/redact.h"
#include "bundle/redact_int.h"
#include "tap.h"

static char tmpdir[] = "/tmp/sonde-test-redact-XXXXXX";

/* The redacted form of a NUL-terminated text (static buffer, for comparisons). */
static const char *red(struct redactor *r, const char *s, unsigned int ctx)
{
	static char buf[8][4096];
	static int k;
	size_t len;
	char *out = redactor__text(r, s, strlen(s), ctx, &len);

	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s", out ? out : "(null)");
	free(out);
	return buf[k];
}

static int has(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

static unsigned int octet(const char *ip, int i)
{
	unsigned int o[4] = { 0 };

	sscanf(ip, "%u.%u.%u.%u", &o[0], &o[1], &o[2], &o[3]);
	return o[i];
}

static void test_ipv4(void)
{
	struct redactor *r = redactor__new();
	char a[64], b[64], c[64], p1[64], p2[64], g[64];

	snprintf(a, sizeof(a), "%s", red(r, "10.77.66.55", 0));
	snprintf(b, sizeof(b), "%s", red(r, "10.77.66.56", 0));
	snprintf(c, sizeof(c), "%s", red(r, "10.77.67.1", 0));
	ok(strcmp(a, "10.77.66.55"), "a private address is replaced (%s)", a);
	is_int(octet(a, 0), 10, "10/8 stays in 10/8");
	is_int(octet(a, 3), 55, "the last octet stays");
	ok(octet(a, 1) == octet(b, 1) && octet(a, 2) == octet(b, 2),
	   "addresses sharing a /24 still share one (%s, %s)", a, b);
	ok(octet(a, 1) != octet(c, 1) || octet(a, 2) != octet(c, 2),
	   "another /24 gets another /24 (%s)", c);
	is_str(red(r, "10.77.66.55", 0), a, "the same address twice: the same pseudonym");
	snprintf(g, sizeof(g), "%s", red(r, "192.168.7.10", 0));
	ok(octet(g, 0) == 192 && octet(g, 1) == 168 && strcmp(g, "192.168.7.10"),
	   "192.168/16 stays in 192.168/16 (%s)", g);
	snprintf(g, sizeof(g), "%s", red(r, "172.20.3.4", 0));
	ok(octet(g, 0) == 172 && octet(g, 1) >= 16 && octet(g, 1) < 32,
	   "172.16/12 stays in 172.16/12 (%s)", g);
	snprintf(p1, sizeof(p1), "%s", red(r, "203.0.113.77", 0));
	snprintf(p2, sizeof(p2), "%s", red(r, "203.0.113.78", 0));
	ok(octet(p1, 0) == 198 && (octet(p1, 1) == 18 || octet(p1, 1) == 19),
	   "a public address goes to 198.18/15 (%s)", p1);
	ok(octet(p1, 2) == octet(p2, 2) && octet(p2, 3) == 78, "and keeps its /24 relation (%s)",
	   p2);
	is_str(red(r, "8.8.8.8", 0), red(r, "8.8.8.8", 0), "public: consistent");
	is_str(red(r, "ping 127.0.0.1 and 127.1.2.3", 0), "ping 127.0.0.1 and 127.1.2.3",
	       "loopback stays");
	is_str(red(r, "0.0.0.0 255.255.255.0 224.0.0.251 255.255.255.255", 0),
	       "0.0.0.0 255.255.255.0 224.0.0.251 255.255.255.255",
	       "this-network, netmasks, multicast and broadcast stay");
	{
		char want[160];

		snprintf(want, sizeof(want), "listen %s:8080, cidr %u.%u.%u.0/24.", a, octet(a, 0),
			 octet(a, 1), octet(a, 2));
		is_str(red(r, "listen 10.77.66.55:8080, cidr 10.77.66.0/24.", 0), want,
		       "ports, prefixes and a full stop around an address");
	}
	is_str(red(r, a, 0), a, "a pseudonym met again is kept (idempotent)");
	redactor__free(r);
}

static void test_no_false_positives(void)
{
	struct redactor *r = redactor__new();
	static const char *const same[] = {
		"Linux version 6.18.44-fc-v445 (gcc 12.2.0) #1 SMP 1.2.3",
		"v1.2.3.4 1.2.3.4.5 256.1.1.1 1.2.3 01:02:03 12:30:45",
		"/proc/sys/kernel/hostname /proc/1234/stat /sys/class/net/eth0/speed",
		"cpu  10132153 290696 3084719 46828483 16683 0 25195 0 0 0\n",
		"MemTotal:       16306248 kB\nKeyCount: 3\n",
		"1234 (perl) S 1 1234 1234 0 -1 4194560 1063 0 0 0 0 0 0 0 20 0\n",
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
		"std::vector a::b 2001:db8::1 ::1 :: ff02::1",
		"monkey=banana --bypass=on tokens=12 sort-order=asc",
		"bogomips\t: 4800.00\nflags\t\t: fpu vme de pse tsc msr\n",
		"2026-11-21T15:30:00Z 0.00 0.01 0.05 1/234 5678",
	};

	redactor__learn(r, "/proc/sys/kernel/hostname", 25, 0);
	for (size_t i = 0; i < sizeof(same) / sizeof(*same); i++)
		is_str(red(r, same[i], 0), same[i], "left alone: case %zu", i + 1);
	redactor__free(r);
}

static void test_ipv6(void)
{
	struct redactor *r = redactor__new();
	char a[80], b[80], c[80], u[80];

	is_str(red(r, "::1 fe80::1234 ff02::fb", 0), "::1 fe80::1234 ff02::fb",
	       "loopback, link-local (not from a MAC) and multicast stay");
	snprintf(a, sizeof(a), "%s", red(r, "2a00:1450::77", 0));
	snprintf(b, sizeof(b), "%s", red(r, "2a00:1450::78", 0));
	snprintf(c, sizeof(c), "%s", red(r, "2a00:1450:0:1::77", 0));
	ok(!strncmp(a, "2001:db8:", 9), "a global address goes to 2001:db8::/32 (%s)", a);
	ok(strlen(a) > 3 && !strcmp(a + strlen(a) - 3, ":77"), "its interface id stays (%s)", a);
	ok(strlen(a) == strlen(b) && !strncmp(a, b, strlen(a) - 2),
	   "the same /64, the same prefix (%s)", b);
	ok(strncmp(a, c, strlen(a) - 3), "another /64, another prefix (%s)", c);
	is_str(red(r, "[2a00:1450::77]:443", 0), (snprintf(u, sizeof(u), "[%s]:443", a), u),
	       "consistent, in brackets with a port");
	snprintf(u, sizeof(u), "%s", red(r, "fd12:3456:789a:1::9", 0));
	ok(!strncmp(u, "fd00:", 5), "a unique local address stays unique local (%s)", u);
	snprintf(u, sizeof(u), "%s", red(r, "fe80::a8bb:ccff:fe11:2233", 0));
	ok(!strncmp(u, "fe80::", 6) && strcmp(u, "fe80::a8bb:ccff:fe11:2233"),
	   "link-local built from a MAC: prefix kept, MAC part mapped (%s)", u);
	snprintf(u, sizeof(u), "%s", red(r, "::ffff:10.77.66.55", 0));
	ok(!strncmp(u, "::ffff:10.", 10) && strcmp(u, "::ffff:10.77.66.55"),
	   "IPv4-mapped follows the IPv4 rules (%s)", u);
	is_str(red(r, a, 0), a, "a pseudonym met again is kept");
	redactor__free(r);
}

static void test_mac(void)
{
	struct redactor *r = redactor__new();
	char a[32], m[32];
	unsigned int b0;

	snprintf(a, sizeof(a), "%s", red(r, "aa:bb:cc:11:22:33", 0));
	ok(strcmp(a, "aa:bb:cc:11:22:33") && strlen(a) == 17, "a MAC is replaced (%s)", a);
	sscanf(a, "%x", &b0);
	is_int(b0 & 3, 0xaa & 3, "its multicast and locally-administered bits stay");
	{
		char want[96];

		snprintf(want, sizeof(want), "link/ether %s brd ff:ff:ff:ff:ff:ff", a);
		is_str(red(r, "link/ether aa:bb:cc:11:22:33 brd ff:ff:ff:ff:ff:ff", 0), want,
		       "consistent; broadcast stays");
	}
	snprintf(m, sizeof(m), "%s", red(r, "01:00:5e:00:00:fb", 0));
	sscanf(m, "%x", &b0);
	ok(b0 & 1, "a multicast MAC stays multicast (%s)", m);
	is_str(red(r, "00:00:00:00:00:00", 0), "00:00:00:00:00:00", "all zeros stays");
	snprintf(m, sizeof(m), "%s", red(r, "AA-BB-CC-11-22-33", 0));
	for (char *p = m; *p; p++)
		*p = *p == '-' ? ':' : *p;
	is_str(m, a, "dashes and upper case: the same MAC");
	is_str(red(r, a, 0), a, "a pseudonym met again is kept");
	redactor__free(r);
}

static void test_secrets(void)
{
	struct redactor *r = redactor__new();
	const char cmd[] = "mysql\0--password=hunter22\0--user\0bob\0";
	const char want[] = "mysql\0--password=REDACTED\0--user\0bob\0";
	const char *o;
	char *out;
	size_t len;

	is_str(red(r, "app --password=hunter22 --passwd=x1 --pass=x2 --token=x3 --secret=x4", 0),
	       "app --password=REDACTED --passwd=REDACTED --pass=REDACTED --token=REDACTED "
	       "--secret=REDACTED",
	       "--password=, --passwd=, --pass=, --token=, --secret=");
	is_str(red(r, "x --api-key=k1 --apikey=k2 --key=k3 --db-password=k4 DB_PASSWORD=k5", 0),
	       "x --api-key=REDACTED --apikey=REDACTED --key=REDACTED --db-password=REDACTED "
	       "DB_PASSWORD=REDACTED",
	       "--api-key=, --apikey=, --key=, prefixed names, environment style");
	is_str(red(r, "curl https://api.example.org/v1?user=bob&token=abc123&page=2#top", 0),
	       "curl https://api.example.org/v1?user=bob&token=REDACTED&page=2#top",
	       "token= in a query string ends at &");
	is_str(red(r, "sleep token=CANARYTOKEN3 password=pw9", 0),
	       "sleep token=REDACTED password=REDACTED", "token= and password= as arguments");
	is_str(red(r, "curl -H Authorization: Bearer eyJhbGci.abc.def -H X-Api-Key: k9", 0),
	       "curl -H Authorization: Bearer REDACTED -H X-Api-Key: REDACTED",
	       "Authorization: Bearer and an API key header");
	is_str(red(r, "token is Bearer abc.def!", 0), "token is Bearer REDACTED",
	       "Bearer on its own");
	is_str(red(r, "Authorization: Basic dXNlcjpwYXNz", 0), "Authorization: Basic REDACTED",
	       "Authorization: Basic");
	o = red(r, "git clone https://alice:s3cretpw@git.example.org/x.git", REDACT_CMDLINE);
	ok(!has(o, "s3cretpw") && !has(o, "alice") && has(o, ":REDACTED@"),
	   "scheme://user:pass@: password dropped, user pseudonymized (%s)", o);
	ok(has(o, "https://user-"), "the user becomes user-N (%s)", o);
	out = redactor__text(r, cmd, sizeof(cmd) - 1, REDACT_CMDLINE, &len);
	ok(out && len == sizeof(want) - 1 && !memcmp(out, want, len),
	   "NUL-separated argv: the value dropped, the separators kept");
	free(out);
	is_str(red(r, "x --password hunter2 --verbose", 0), "x --password REDACTED --verbose",
	       "--password VALUE as the next argument");
	is_str(red(r, "x --password --verbose", 0), "x --password --verbose",
	       "--password followed by an option: nothing to drop");
	redactor__free(r);
}

/*
 * URL credentials beyond user:password@: pre-signed queries (S3, GCS, Azure),
 * OAuth codes, a parameter whose value reads as a token, a token as the user
 * part. Before, only "token=" and "password=" names were caught in a query.
 */
static void test_url_credentials(void)
{
	struct redactor *r = redactor__new();
	const char *o;

	is_str(red(r, "curl https://b.example.org/o?X-Amz-Credential=AKIAX%2F2026&"
		      "X-Amz-Signature=9f8e7d6c&X-Amz-Expires=600&sig=abc%3D&case=SR-1", 0),
	       "curl https://b.example.org/o?X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED&"
	       "X-Amz-Expires=600&sig=REDACTED&case=SR-1",
	       "a pre-signed URL: credential and signatures dropped, the rest kept");
	is_str(red(r, "open https://h.example.org/cb?code=4/0AX4Xf&state=x1", 0),
	       "open https://h.example.org/cb?code=REDACTED&state=x1", "an OAuth code");
	is_str(red(r, "get https://h.example.org/d?t=8f14e45fceea167a5a36dedd4bea2543&n=2", 0),
	       "get https://h.example.org/d?t=REDACTED&n=2", "a value that reads as a token");
	is_str(red(r, "get https://h.example.org/d?name=sonde-vm-20261129T074643Z&v=1.2.3", 0),
	       "get https://h.example.org/d?name=sonde-vm-20261129T074643Z&v=1.2.3",
	       "a name with digits is not a token");
	o = red(r, "git clone https://ghp_a1B2c3D4e5F6g7H8i9J0@github.example.org/x", 0);
	ok(has(o, "https://REDACTED@") && !has(o, "ghp_"), "a token as the user part (%s)", o);
	o = red(r, "sftp sftp://backup@h.example.org/x/", REDACT_CMDLINE);
	ok(has(o, "sftp://user-"), "a user name as the user part is a name (%s)", o);
	is_int(redact__url_has_secret("https://h.example.org/q/?X-Amz-Signature=ab12"), 1,
	       "a signature in the query is a secret");
	is_int(redact__url_has_secret("https://u:p@h.example.org/"), 1, "a password is one");
	is_int(redact__url_has_secret("https://ghp_a1B2c3D4e5F6g7H8i9J0@h.example.org/"), 1,
	       "a token as the user part is one");
	is_int(redact__url_has_secret("https://h.example.org/q/?case=SR-1&page=2"), 0,
	       "a plain query is not");
	is_int(redact__url_has_secret("sftp://root@127.0.0.1:2222/in/"), 0,
	       "nor a user name");
	redactor__free(r);
}

/* An argv element is the unit of a secret; a report joining argv with spaces follows it. */
static void test_argv_secrets(void)
{
	static const struct {
		const char *in, *want;
		size_t in_len, want_len;
		const char *what;
	} argv[] = {
#define A(in, want, what) { in, want, sizeof(in) - 1, sizeof(want) - 1, what }
		A("prog\0--password=correct horse CANARY\0--user\0bob\0",
		  "prog\0--password=REDACTED\0--user\0bob\0", "--password=V with blanks"),
		A("psql\0--db-password\0two words\0db\0", "psql\0--db-password\0REDACTED\0db\0",
		  "--db-password V, V with a blank"),
		A("env\0API_TOKEN=zq wv\0cmd\0", "env\0API_TOKEN=REDACTED\0cmd\0",
		  "API_TOKEN=V, a short V with a blank"),
		A("x\0--secret=tab\there\0", "x\0--secret=REDACTED\0", "a tab in V"),
		A("c\0-H\0Authorization: Bearer ab cd\0", "c\0-H\0Authorization: Bearer REDACTED\0",
		  "Authorization: Bearer V with a blank"),
#undef A
	};
	struct redactor *r = redactor__new();
	const char cut[] = "x\0--password=correct hor";
	char *out;
	size_t len;

	for (size_t i = 0; i < sizeof(argv) / sizeof(*argv); i++)
		redactor__learn(r, argv[i].in, argv[i].in_len, REDACT_CMDLINE | REDACT_ARGV);
	redactor__learn(r, cut, sizeof(cut) - 1, REDACT_CMDLINE | REDACT_ARGV | REDACT_TRUNCATED);
	for (size_t i = 0; i < sizeof(argv) / sizeof(*argv); i++) {
		out = redactor__text(r, argv[i].in, argv[i].in_len, REDACT_CMDLINE | REDACT_ARGV,
				     &len);
		ok(out && len == argv[i].want_len && !memcmp(out, argv[i].want, len),
		   "argv, %s: the whole element", argv[i].what);
		free(out);
	}
	out = redactor__text(r, cut, sizeof(cut) - 1,
			     REDACT_CMDLINE | REDACT_ARGV | REDACT_TRUNCATED, &len);
	ok(out && len == 21 && !memcmp(out, "x\0--password=REDACTED", 21),
	   "argv cut at the cap inside a secret: the value and its fragment dropped");
	free(out);
	/* The same command lines as a report shows them: joined with spaces. */
	is_str(red(r, "prog --password=correct horse CANARY --user bob", 0),
	       "prog --password=REDACTED --user bob", "joined: the learned value, blanks and all");
	is_str(red(r, "psql --db-password two words db", 0), "psql --db-password REDACTED db",
	       "joined: --db-password V");
	is_str(red(r, "env API_TOKEN=zq wv cmd", 0), "env API_TOKEN=REDACTED cmd",
	       "joined: a short value with a blank, after its name");
	is_str(red(r, "x --password=correct hor", 0), "x --password=REDACTED",
	       "joined: the value cut at the cap, fragment included");
	is_str(red(r, "echo correct horse CANARY", 0), "echo REDACTED",
	       "the learned value elsewhere");
	is_str(red(r, "| prog --password=correct horse CAN \xe2\x80\xa6", 0),
	       "| prog --password=REDACTED REDACTED REDACTED \xe2\x80\xa6",
	       "a table cell cut between its words: each word and the fragment dropped");
	is_str(red(r, "db --password=other things stay", 0), "db --password=REDACTED things stay",
	       "a value never learned: up to the blank, as before");
	redactor__free(r);
}

/* execsnoop's args, cut at 255 bytes inside scheme://user:PASSWORD@host. */
static void test_json_cut(void)
{
	struct redactor *r = redactor__new();
	struct strbuf out = { 0 };
	const char json[] = "{\"samples\": [{\"args\": \"curl -o x https://bob:CANARYPW\", "
			    "\"args_cut\": true}, {\"args\": \"ls https://u:keep\", "
			    "\"args_cut\": false}]}";

	strbuf__append(&out, "", 0);
	redact__json(r, json, sizeof(json) - 1, NULL);
	redact__json(r, json, sizeof(json) - 1, &out);
	ok(out.buf && !has(out.buf, "CANARYPW") && !has(out.buf, "bob") &&
		   has(out.buf, "\"curl -o x REDACTED\""),
	   "a value with \"KEY_cut\": true after it: its last token dropped (%s)", out.buf);
	ok(out.buf && has(out.buf, "ls https://u:keep"), "\"KEY_cut\": false: as it is");
	strbuf__free(&out);
	redactor__free(r);
}

static void test_learned_secrets(void)
{
	struct redactor *r = redactor__new();
	const char cmd[] = "app\0--password=Tr0ub4dor\0";

	redactor__learn(r, cmd, sizeof(cmd) - 1, REDACT_CMDLINE);
	is_str(red(r, "echo Tr0ub4dor", 0), "echo REDACTED",
	       "a secret learned from a command line is dropped elsewhere too");
	redactor__free(r);
}

static void test_names(void)
{
	struct redactor *r = redactor__new();
	const char ssh[] = "ssh\0bob@db7.acme.net\0-p\0" "22\0";
	const char *o;
	char map[4200], *text = NULL;
	FILE *f;
	long n;

	redactor__learn(r, "web1.corp.acme.net\n", 19, REDACT_HOSTNAME);
	redactor__learn(r, ssh, sizeof(ssh) - 1, REDACT_CMDLINE);
	redactor__learn(r, "ls /home/alice/src", 18, 0);
	is_str(red(r, "web1", 0), "host-1", "the host's own name is host-1");
	is_str(red(r, "ssh web1.corp.acme.net", 0), "ssh host-1.domain-1.example",
	       "a fully qualified host name: host and domain");
	is_str(red(r, "WEB1 and Web1", 0), "host-1 and host-1", "names match in any case");
	is_str(red(r, "web10 aweb1 web1_x", 0), "web10 aweb1 web1_x", "only whole words");
	o = red(r, "ssh bob@db7.acme.net", 0);
	ok(!has(o, "bob") && !has(o, "db7") && !has(o, "acme"),
	   "user@host learned from a command line (%s)", o);
	o = red(r, "cd /home/alice/src; make USER=alice", 0);
	ok(!has(o, "alice") && has(o, "/home/user-"), "/home/NAME: a user everywhere (%s)", o);
	is_str(red(r, "malice", 0), "malice", "not inside a word");
	is_str(red(r, "/home/zed/x", 0), red(r, "/home/zed/x", 0),
	       "a user met only now still gets one pseudonym");
	ok(!has(red(r, "/Users/carol/Library", 0), "carol"), "/Users/NAME too");
	is_str(red(r, "root nobody localhost", 0), "root nobody localhost",
	       "root, nobody and localhost identify nobody: kept");
	o = red(r, "host-1 user-1 domain-1.example", 0);
	is_str(red(r, o, 0), o, "pseudonyms are kept when met again");

	snprintf(map, sizeof(map), "%s/names.map.json", tmpdir);
	is_int(redactor__write_map(r, map, (char[256]){ 0 }, 256), 0, "the mapping is written");
	f = fopen(map, "r");
	if (f) {
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		fseek(f, 0, SEEK_SET);
		text = calloc(1, (size_t)n + 1);
		if (fread(text, 1, (size_t)n, f) != (size_t)n)
			n = 0;
		fclose(f);
	}
	ok(text && has(text, "\"web1\": \"host-1\"") &&
		   has(text, "\"corp.acme.net\": \"domain-1.example\"") &&
		   has(text, "\"alice\": \"user-"),
	   "the mapping names host, domain and user");
	free(text);
	redactor__free(r);
}

static void test_short_names(void)
{
	struct redactor *r = redactor__new();

	redactor__learn(r, "vm\n", 3, REDACT_HOSTNAME);
	is_str(red(r, "sonde 0.1.0 · vm · VM guest (CPU hypervisor flag)", 0),
	       "sonde 0.1.0 · host-1 · VM guest (CPU hypervisor flag)",
	       "a short name matches only in its own case: \"VM guest\" stays");
	is_str(red(r, "vmstat kvm vm_x", 0), "vmstat kvm vm_x", "and only as a whole word");
	redactor__free(r);
}

static void test_views(void)
{
	struct redactor *r = redactor__new();
	char dir[4096], path[4200], err[256], *text = NULL;
	struct jval *doc = NULL;
	FILE *f;
	long n = 0;
	static const char json[] =
		"{\"hostname\": \"web1\", \"alice\": \"\\/home\\/alice\\/x 10.77.66.55\",\n"
		" \"t\": [\"--password=a\\\"b c\", \"caf\\u00e9 alice\"]}\n";
	static const char md[] =
		"# sonde report: web1\n\n| x |\n|---|\n| 10\\.77\\.66\\.55 \\-\\-password\\=pw |\n"
		"| aa\\:bb\\:cc\\: … |\n";
	static const char html[] =
		"<html><head><style>.web1 { color: red }</style><title>report: web1</title></head>"
		"<h1 id=\"report-web1\">web1 &amp; alice</h1><td>10.77.66.55 &lt;x&gt;</td></html>";

	redactor__learn(r, "web1\n", 5, REDACT_HOSTNAME);
	redactor__learn(r, "/home/alice", 11, 0);
	snprintf(dir, sizeof(dir), "%s/views", tmpdir);
	mkdir(dir, 0700);
#define PUT(name, data)                                                        \
	do {                                                                   \
		snprintf(path, sizeof(path), "%s/%s", dir, name);              \
		f = fopen(path, "w");                                          \
		fwrite(data, 1, sizeof(data) - 1, f);                          \
		fclose(f);                                                     \
	} while (0)
#define GET(name)                                                              \
	do {                                                                   \
		free(text);                                                    \
		snprintf(path, sizeof(path), "%s/%s", dir, name);              \
		f = fopen(path, "r");                                          \
		fseek(f, 0, SEEK_END);                                         \
		n = ftell(f);                                                  \
		fseek(f, 0, SEEK_SET);                                         \
		text = calloc(1, (size_t)n + 1);                               \
		if (fread(text, 1, (size_t)n, f) != (size_t)n)                 \
			n = 0;                                                 \
		fclose(f);                                                     \
	} while (0)
	PUT("f.json", json);
	PUT("r.md", md);
	PUT("r.html", html);
	is_int(redactor__apply_dir(r, dir, err, sizeof(err)), 0,
	       "a directory of views is rewritten");
	GET("f.json");
	ok(!json_read(text, (size_t)n, &json_read_default_limits, &doc, err, sizeof(err)),
	   "JSON stays valid");
	ok(doc && jval__get(doc, "alice"), "keys are structure: left alone");
	is_str(jval__str(doc, "hostname"), "host-1", "a string value is redacted");
	ok(has(text, "\\/home\\/user-1\\/x") && !has(text, "10.77.66.55"),
	   "escapes read through: \\/home\\/alice");
	ok(has(text, "--password=REDACTED c") && has(text, "caf\\u00e9 user-1"),
	   "an escaped quote ends nothing; \\u escapes decoded");
	jval__free(doc);
	GET("r.md");
	ok(has(text, "# sonde report: host-1") && !has(text, "10\\.77\\.66\\.55") &&
		   has(text, "\\-\\-password\\=REDACTED"),
	   "Markdown: backslash escapes read through");
	ok(has(text, "| REDACTED … |") && !has(text, "aa\\:bb"),
	   "a cell cut for width: its cut token is dropped");
	GET("r.html");
	ok(has(text, ".web1 { color: red }"), "HTML: the stylesheet is left alone");
	ok(has(text, "<title>report: host-1</title>") && has(text, "id=\"report-host-1\"") &&
		   has(text, ">host-1 &amp; user-1<") && has(text, "&lt;x&gt;") &&
		   !has(text, "10.77.66.55"),
	   "HTML: text and attribute values, entities kept");
	free(text);
	redactor__free(r);
#undef PUT
#undef GET
}

/* What `sonde redact` does to its staging directory: redact__dir, then the mapping. */
/* tmpdir/NAME and its raw/, created: a staging directory to redact. */
static void make_stage(const char *name, char *stage, size_t slen, char *raw, size_t rlen)
{
	snprintf(stage, slen, "%s/%s", tmpdir, name);
	snprintf(raw, rlen, "%s/raw", stage);
	mkdir(stage, 0700);
	mkdir(raw, 0700);
}

static int redact_stage(const char *stage, const char *mapping_path, char *err, size_t errlen)
{
	struct redactor *r;
	int rc;

	err[0] = '\0';
	r = redact__dir(stage, NULL, NULL, err, errlen);
	if (!r)
		return -EINVAL;
	rc = redactor__write_map(r, mapping_path, err, errlen);
	redactor__free(r);
	return rc;
}

static void test_stage(void)
{
	struct capture_writer w;
	struct capture_set cs;
	const struct capture_stream *st;
	char stage[4096], raw[4200], map[4200], err[512], path[4400], *text = NULL;
	const char argv1[] = "perl\0-e\0sleep 30\0--password=CANARYPW1\0"
			     "https://canaryuser:CANARYSECRET2@canarydomain.example.org/x\0"
			     "10.77.66.55\0aa:bb:cc:11:22:33\0/home/canaryuser/data\0";
	const char cut[] = "java\0-jar\0app.jar\0--db=jdbc:CANARYCUTTAIL";
	struct stat sb;
	FILE *f;
	long n = 0;
	int rc;

	make_stage("stage", stage, sizeof(stage), raw, sizeof(raw));
	capture_writer__open(&w, raw, "host");
	capture_writer__record(&w, 0, 1, 1, "/proc/sys/kernel/hostname", "CANARYHOST-x1\n", 14, 0);
	capture_writer__record(&w, 0, 1, 1, "/proc/sys/kernel/osrelease", "6.18.44\n", 8, 0);
	capture_writer__close(&w);
	capture_writer__open(&w, raw, "proc.pids");
	capture_writer__record(&w, 0, 2, 2, "/proc/77/cmdline", argv1, sizeof(argv1) - 1, 0);
	capture_writer__record(&w, 0, 2, 2, "/proc/77/stat", "77 (perl) S 1\n", 14, 0);
	capture_writer__record(&w, 1, 3, 3, "/proc/77/cmdline", argv1, sizeof(argv1) - 1, 0);
	capture_writer__error(&w, 1, 3, 3, "/proc/78/cmdline", ESRCH);
	capture_writer__record(&w, 1, 3, 3, "/proc/79/cmdline", cut, sizeof(cut) - 1, 1);
	capture_writer__close(&w);
	snprintf(path, sizeof(path), "%s/findings.json", stage);
	f = fopen(path, "w");
	fprintf(f, "{\"host\": {\"hostname\": \"CANARYHOST-x1\"}, \"cmdline\": "
		   "\"java -jar app.jar --db=jdbc:CANARYCUTTAIL\", \"ip\": \"10.77.66.55\"}\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/manifest.json", stage);
	f = fopen(path, "w");
	fprintf(f, "{\"host\": \"CANARYHOST-x1\"}\n");
	fclose(f);

	snprintf(map, sizeof(map), "%s/stage.redaction-map.json", tmpdir);
	rc = redact_stage(stage, map, err, sizeof(err));
	is_int(rc, 0, "redact__dir rewrites a stage (%s)", rc ? err : "ok");
	rc = capture_set__load(&cs, raw, err, sizeof(err));
	is_int(rc, 0, "the rewritten captures load again (%s)", rc ? err : "ok");
	st = capture_set__stream(&cs, "host");
	ok(st && st->n == 2 && st->rec[0].len == 7 && !memcmp(st->rec[0].data, "host-1\n", 7),
	   "the hostname record holds the pseudonym, its length rewritten");
	ok(st && st->rec[1].len == 8 && !memcmp(st->rec[1].data, "6.18.44\n", 8),
	   "a record with nothing to redact is unchanged");
	st = capture_set__stream(&cs, "proc.pids");
	ok(st && st->n == 5, "every record is still there, the failed read too");
	if (st && st->n == 5) {
		const struct capture_rec *c = &st->rec[0];
		int clean = 1;

		for (size_t i = 0; i < c->len; i++)
			if (!strncasecmp(c->data + i, "canary", 6) ||
			    !strncmp(c->data + i, "10.77.66.55", 11) ||
			    !strncmp(c->data + i, "aa:bb:cc", 8))
				clean = 0;
		ok(clean, "no canary left in the command line");
		ok(memchr(c->data, '\0', c->len) && c->data[c->len - 1] == '\0',
		   "the argv separators are kept");
		ok(st->rec[2].len == c->len && !memcmp(st->rec[2].data, c->data, c->len),
		   "the repeated read is the same redacted payload");
		is_int(st->rec[3].err, ESRCH, "the failed read keeps its errno");
		ok(st->rec[4].truncated && st->rec[4].len >= 8 &&
			   !memcmp(st->rec[4].data + st->rec[4].len - 8, "REDACTED", 8),
		   "a truncated payload: its cut last token dropped");
	}
	capture_set__free(&cs);
	snprintf(path, sizeof(path), "%s/proc.pids.cap", raw);
	f = fopen(path, "r");
	if (f) {
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		fseek(f, 0, SEEK_SET);
		text = calloc(1, (size_t)n + 1);
		if (fread(text, 1, (size_t)n, f) != (size_t)n)
			n = 0;
		fclose(f);
	}
	ok(text && memmem(text, (size_t)n, "\n= 1 3 3 ", 9),
	   "an exact repeat is still written as a '=' record");
	free(text);
	text = NULL;
	snprintf(path, sizeof(path), "%s/findings.json", stage);
	f = fopen(path, "r");
	if (f) {
		text = calloc(1, 4096);
		if (!fread(text, 1, 4095, f))
			text[0] = '\0';
		fclose(f);
	}
	ok(text && !has(text, "CANARY") && has(text, "\"host-1\"") &&
		   has(text, "\"java -jar app.jar REDACTED\""),
	   "findings.json: the host and the cut tail learned from the captures");
	free(text);
	text = NULL;
	snprintf(path, sizeof(path), "%s/manifest.json", stage);
	f = fopen(path, "r");
	if (f) {
		text = calloc(1, 4096);
		if (!fread(text, 1, 4095, f))
			text[0] = '\0';
		fclose(f);
	}
	ok(text && has(text, "CANARYHOST"), "manifest.json is left to the caller");
	free(text);
	ok(!stat(map, &sb) && (sb.st_mode & 0777) == 0600, "the mapping is mode 0600");
	rc = redact_stage(stage, map, err, sizeof(err));
	is_int(rc, -EEXIST, "an existing mapping is never replaced");
	snprintf(path, sizeof(path), "%s/.redact-proc.pids.cap", raw);
	ok(stat(path, &sb) && errno == ENOENT, "no temporary left behind");
}

/*
 * '=' records: written as repeats in the copy whatever their size, each
 * learned and redacted once; a repeat of a truncated read stays truncated.
 */
static void test_repeats(void)
{
	struct capture_set cs;
	const struct capture_stream *st;
	struct redactor *r;
	static const char cut[] = "run\0--token=CANARYCUT";
	char stage[4096], raw[4200], path[4400], err[512], *big, *text = NULL;
	size_t big_len = 256 << 10, n = 0, reps = 0;
	struct stat sb;
	FILE *f;
	int rc;

	make_stage("repeats", stage, sizeof(stage), raw, sizeof(raw));
	big = malloc(big_len);
	memset(big, 'x', big_len);
	memcpy(big, "app\0--password=CANARYREP\0", 26);
	snprintf(path, sizeof(path), "%s/proc.pids.cap", raw);
	f = fopen(path, "w");
	fprintf(f, "sonde-capture 1\n@ 0 1 1 %zu - /proc/5/cmdline\n", big_len);
	fwrite(big, 1, big_len, f);
	fputc('\n', f);
	for (int i = 1; i <= 500; i++)
		fprintf(f, "= %d %d %d %zu - /proc/5/cmdline\n", i, i + 1, i + 1, big_len);
	fprintf(f, "@ 0 1 1 %zu t /proc/6/cmdline\n", sizeof(cut) - 1);
	fwrite(cut, 1, sizeof(cut) - 1, f);
	fprintf(f, "\n= 1 2 2 %zu - /proc/6/cmdline\n", sizeof(cut) - 1);
	fclose(f);
	free(big);

	r = redact__dir(stage, NULL, NULL, err, sizeof(err));
	ok(r, "a stream of 500 repeats of a 256 KiB read is redacted (%s)", r ? "ok" : err);
	redactor__free(r);
	ok(!stat(path, &sb) && sb.st_size < (off_t)big_len + 100 * 1000,
	   "the copy stays the size of the original (%lld bytes)", (long long)sb.st_size);
	rc = capture_set__load(&cs, raw, err, sizeof(err));
	is_int(rc, 0, "the copy loads (%s)", rc ? err : "ok");
	st = rc ? NULL : capture_set__stream(&cs, "proc.pids");
	ok(st && st->n == 503, "every record is there (%zu)", st ? st->n : 0);
	for (size_t i = 1; st && i <= 500 && i < st->n; i++)
		reps += st->rec[i].data == st->rec[0].data;
	is_int(reps, 500, "each '=' repeats the redacted read");
	ok(st && st->n == 503 && !memmem(st->rec[0].data, st->rec[0].len, "CANARYREP", 9) &&
		   memmem(st->rec[0].data, st->rec[0].len, "--password=REDACTED", 19),
	   "the repeated read is redacted");
	ok(st && st->n == 503 && st->rec[502].truncated && st->rec[502].data == st->rec[501].data,
	   "a repeat of a truncated read: still a repeat, still truncated");
	if (!rc)
		capture_set__free(&cs);
	f = fopen(path, "r");
	if (f) {
		text = calloc(1, (size_t)sb.st_size + 1);
		n = fread(text, 1, (size_t)sb.st_size, f);
		fclose(f);
	}
	reps = 0;
	for (const char *p = text; p && (p = memmem(p, n - (size_t)(p - text), "\n= ", 3)); p++)
		reps++;
	is_int(reps, 501, "written as 501 '=' records");
	free(text);
}

/*
 * A stat line's COMM is a unit: a secret-looking process name is redacted
 * between its parentheses, and the ')' that ends it stays (the readers find
 * the COMM from the last one). Before, "token=abcdef) S 1" lost its ')' and
 * the process its record.
 */
static void test_comm_records(void)
{
	static const struct {
		const char *path, *in, *want;
	} recs[] = {
		{ "/proc/42/stat", "42 (token=abcdef) S 1 0\n", "42 (token=REDACTED) S 1 0\n" },
		{ "/proc/42/task/43/stat", "43 (a) password=x) R 1\n",
		  "43 (a) password=REDACTED) R 1\n" },
		{ "sonde:task/44", "44 (Bearer abc) S 1 0 1\n", "44 (Bearer REDACTED) S 1 0 1\n" },
		{ "/proc/45/stat", "45 (sshd) S 1 0\n", "45 (sshd) S 1 0\n" },
		/* not a stat line: a secret's value still runs to the blank */
		{ "/proc/46/status", "Name:\ttoken=abc)\n", "Name:\ttoken=REDACTED\n" },
	};
	struct capture_writer w;
	struct capture_set cs;
	const struct capture_stream *st;
	struct redactor *r;
	char stage[4096], raw[4200], err[512];
	size_t nrec = sizeof(recs) / sizeof(*recs);
	int rc;

	make_stage("comm", stage, sizeof(stage), raw, sizeof(raw));
	capture_writer__open(&w, raw, "proc.pids");
	for (size_t i = 0; i < nrec; i++)
		capture_writer__record(&w, 0, 1, 1, recs[i].path, recs[i].in, strlen(recs[i].in),
				       0);
	capture_writer__close(&w);
	err[0] = '\0';
	r = redact__dir(stage, NULL, NULL, err, sizeof(err));
	ok(r != NULL, "a stage with stat lines is redacted (%s)", r ? "ok" : err);
	redactor__free(r);
	rc = capture_set__load(&cs, raw, err, sizeof(err));
	is_int(rc, 0, "and loads again (%s)", rc ? err : "ok");
	st = capture_set__stream(&cs, "proc.pids");
	ok(st && st->n == nrec, "every record is there");
	for (size_t i = 0; st && i < st->n && i < nrec; i++) {
		char got[256];

		snprintf(got, sizeof(got), "%.*s", (int)st->rec[i].len, st->rec[i].data);
		is_str(got, recs[i].want, "%s: its shape kept", recs[i].path);
	}
	capture_set__free(&cs);
}

/*
 * sonde:containers: the workload names (container, Kubernetes container, pod, namespace,
 * image) are learned like host names and replaced everywhere, the cgroup paths that hold a
 * runc name included, consistently; ids, containerd's namespace and Kubernetes' own
 * namespaces stay.
 */
static void test_containers(void)
{
	static const char facts[] =
		"3f2a1b9c0d1e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c\truntime\tcontainerd\n"
		"3f2a1b9c0d1e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c\tnamespace\tk8s.io\n"
		"3f2a1b9c0d1e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c\tk8s-container\tcheckoutsvc\n"
		"3f2a1b9c0d1e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c\timage\tregistry.corp/shop/checkout:1.4\n"
		"pod:0d6b5e3c-1a2b-4c3d-8e9f-0a1b2c3d4e5f\tnamespace\tshopfront\n"
		"pod:0d6b5e3c-1a2b-4c3d-8e9f-0a1b2c3d4e5f\tname\tcheckout-7d9f\n"
		"pod:1d6b5e3c-1a2b-4c3d-8e9f-0a1b2c3d4e5f\tnamespace\tkube-system\n"
		"billing-batch\tname\tbilling-batch\n";
	static const char procs[] = "/sys/fs/cgroup/cpu/billing-batch/cgroup.procs";
	struct capture_writer w;
	struct capture_set cs;
	const struct capture_stream *st;
	struct redactor *r;
	char stage[4096], raw[4200], err[512], got[2048] = "", path[256] = "";
	int rc;

	make_stage("containers", stage, sizeof(stage), raw, sizeof(raw));
	capture_writer__open(&w, raw, "proc.cgroups");
	capture_writer__record(&w, 0, 1, 1, procs, "42\n", 3, 0);
	capture_writer__record(&w, 0, 1, 1, "sonde:containers", facts, strlen(facts), 0);
	capture_writer__close(&w);
	r = redact__dir(stage, NULL, NULL, err, sizeof(err));
	ok(r != NULL, "a stage with sonde:containers is redacted (%s)", r ? "ok" : err);
	redactor__free(r);
	rc = capture_set__load(&cs, raw, err, sizeof(err));
	is_int(rc, 0, "and loads again (%s)", rc ? err : "ok");
	st = capture_set__stream(&cs, "proc.cgroups");
	ok(st && st->n == 2, "both records are there");
	if (st && st->n == 2) {
		snprintf(path, sizeof(path), "%s", st->rec[0].path);
		snprintf(got, sizeof(got), "%.*s", (int)st->rec[1].len, st->rec[1].data);
	}
	ok(!has(got, "checkoutsvc") && !has(got, "checkout-7d9f") && !has(got, "shopfront") &&
	   !has(got, "registry.corp") && !has(got, "billing-batch"),
	   "no container, pod, namespace or image name is left");
	ok(has(got, "\tk8s-container\tworkload-") && has(got, "\tname\tworkload-"),
	   "they are workload-N pseudonyms");
	ok(has(got, "3f2a1b9c0d1e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c\truntime"),
	   "the container id stays");
	ok(has(got, "\tnamespace\tk8s.io\n") && has(got, "\tnamespace\tkube-system\n"),
	   "containerd's namespace and Kubernetes' own stay");
	ok(!has(path, "billing-batch") && has(path, "/sys/fs/cgroup/cpu/workload-"),
	   "the cgroup path of a runc container named so is pseudonymized too (%s)", path);
	{
		const char *k = strstr(got, "\nworkload-");
		const char *n = k ? strstr(k, "\tname\tworkload-") : NULL;
		const char *pk = strstr(path, "workload-");
		size_t kl = k ? strcspn(k + 1, "\t") : 0;

		ok(k && n && pk && !strncmp(k + 1, pk, kl) && !strncmp(n + 6, pk, kl),
		   "one pseudonym for the name, its key and its cgroup path");
	}
	capture_set__free(&cs);
}

static void test_idempotent(void)
{
	struct redactor *r = redactor__new();
	const char *t = "web1 10.1.2.3 192.168.0.9 8.8.4.4 2a00::1 fd00:1::2 aa:bb:cc:dd:ee:ff "
			"/home/alice --token=x https://u:p@h.example.org/";
	char once[1024];

	redactor__learn(r, "web1\n", 5, REDACT_HOSTNAME);
	snprintf(once, sizeof(once), "%s", red(r, t, 0));
	is_str(red(r, once, 0), once, "redacting twice changes nothing more");
	is_str(red(r, t, 0), once, "the same input, the same output");
	redactor__free(r);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_ipv4();
	test_no_false_positives();
	test_ipv6();
	test_mac();
	test_secrets();
	test_url_credentials();
	test_learned_secrets();
	test_argv_secrets();
	test_json_cut();
	test_names();
	test_short_names();
	test_views();
	test_repeats();
	test_stage();
	test_comm_records();
	test_containers();
	test_idempotent();
	{
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			printf("# could not remove %s\n", tmpdir);
	}
	return tap_done();
}
