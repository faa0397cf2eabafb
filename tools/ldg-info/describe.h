/* ldg-info: decode one section (validating it) and state its key facts. */
#ifndef LDG_INFO_DESCRIBE_H
#define LDG_INFO_DESCRIBE_H

#include "facts.h"
#include "ldem/bundle.h"
#include "ldem/err.h"

int describe_meta(const ldem_section *s, const char *source, facts *f, ldem_err *err);
int describe_lset(const ldem_section *s, const char *source, facts *f, ldem_err *err);
int describe_nodes(const ldem_section *s, const char *source, facts *f, ldem_err *err);
int describe_body(const ldem_section *s, const char *source, facts *f, ldem_err *err);
int describe_modes(const ldem_section *s, const char *source, facts *f, ldem_err *err);
int describe_matrix(const ldem_section *s, const char *source, facts *f, ldem_err *err);
int describe_etab(const ldem_section *s, const char *source, facts *f, ldem_err *err);
int describe_damping(const ldem_section *s, const char *source, facts *f, ldem_err *err);

#endif
