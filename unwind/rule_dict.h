/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rule_dict: the dictionary of unwind rules every table's rows refer to
 * (see unwind_rule.h). Ids are handed out in order and never change, so a
 * reader can copy the rules added since it last looked: those from the
 * count it saw up to rule_dict__count().
 *
 * Id UNWIND_RULE_ID_NONE (0) is always UNWIND_RULE_NONE and id 1 always
 * UNWIND_RULE_UNSUPPORTED. Not thread-safe: one owner.
 */
#ifndef FLAMETOP_RULE_DICT_H
#define FLAMETOP_RULE_DICT_H

#include <linux/types.h>
#include <stdint.h>

#include "unwind/unwind_rule.h"

#define UNWIND_RULE_ID_UNSUPPORTED 1

struct rule_dict;

/* rule_dict__new() makes a dictionary holding the two fixed rules; NULL when out of memory. */
struct rule_dict *rule_dict__new(void);

/*
 * rule_dict__intern() returns the id of rule @r (its pad ignored), adding
 * it when it is new. When the dictionary is full (UNWIND_MAX_RULES) or
 * memory runs out, a new rule gets UNWIND_RULE_ID_UNSUPPORTED: a walk stops
 * there, it never follows a wrong rule.
 */
uint32_t rule_dict__intern(struct rule_dict *d, const struct unwind_rule *r);

/* The rule of id @id (< rule_dict__count()). */
const struct unwind_rule *rule_dict__get(const struct rule_dict *d, uint32_t id);

/* Number of rules: ids run from 0 to this, excluded. */
uint32_t rule_dict__count(const struct rule_dict *d);

/* rule_dict__free(NULL) is a no-op. */
void rule_dict__free(struct rule_dict *d);

#endif
