// SPDX-License-Identifier: GPL-2.0
/*
 * rule_dict: an array of rules and a hash index over it.
 */
#include "unwind/rule_dict.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile/hash_index.h" /* a generic index: no profile type comes with it */

struct rule_dict {
	struct unwind_rule *rules;
	size_t n, cap;
	struct hash_index index;
};

struct rule_probe {
	const struct rule_dict *d;
	const struct unwind_rule *r;
};

static bool same_rule(const void *ctx, uint32_t i)
{
	const struct rule_probe *p = ctx;

	return !memcmp(&p->d->rules[i], p->r, sizeof(*p->r));
}

static uint64_t rule_hash(const struct unwind_rule *r)
{
	return hash_bytes(r, sizeof(*r));
}

static uint64_t rehash_rule(const void *ctx, uint32_t i)
{
	const struct rule_dict *d = ctx;

	return rule_hash(&d->rules[i]);
}

struct rule_dict *rule_dict__new(void)
{
	static const struct unwind_rule fixed[] = {
		[UNWIND_RULE_ID_NONE] = { .kind = UNWIND_RULE_NONE },
		[UNWIND_RULE_ID_UNSUPPORTED] = { .kind = UNWIND_RULE_UNSUPPORTED },
	};
	struct rule_dict *d = calloc(1, sizeof(*d));

	if (!d || hash_index__init(&d->index, 1024)) {
		free(d);
		return NULL;
	}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (rule_dict__intern(d, &fixed[i]) != i) {
			rule_dict__free(d);
			return NULL;
		}
	}
	return d;
}

uint32_t rule_dict__intern(struct rule_dict *d, const struct unwind_rule *rule)
{
	struct unwind_rule r = *rule;
	struct rule_probe probe = { d, &r };
	struct hash_slot *slot;
	uint64_t h;

	r.pad = 0;
	h = rule_hash(&r);
	slot = hash_index__find(&d->index, h, same_rule, &probe);
	if (slot->entry1)
		return slot->entry1 - 1;
	if (d->n >= UNWIND_MAX_RULES ||
	    array__grow((void **)&d->rules, &d->cap, d->n + 1, sizeof(*d->rules), 256))
		return UNWIND_RULE_ID_UNSUPPORTED;
	d->rules[d->n] = r;
	if (hash_index__insert(&d->index, h, (uint32_t)d->n, rehash_rule, d))
		return UNWIND_RULE_ID_UNSUPPORTED;
	return (uint32_t)d->n++;
}

const struct unwind_rule *rule_dict__get(const struct rule_dict *d, uint32_t id)
{
	return &d->rules[id];
}

uint32_t rule_dict__count(const struct rule_dict *d)
{
	return (uint32_t)d->n;
}

void rule_dict__free(struct rule_dict *d)
{
	if (!d)
		return;
	hash_index__free(&d->index);
	free(d->rules);
	free(d);
}
