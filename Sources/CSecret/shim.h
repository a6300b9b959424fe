#pragma once
#include <libsecret/secret.h>

/* The schema Reveille keeps a CalDAV password under: the server's collection URL and the user. */
static inline const SecretSchema *reveille_caldav_schema(void) {
    static const SecretSchema schema = {
        "io.github.reveille.CalDAV", SECRET_SCHEMA_NONE,
        { { "url", SECRET_SCHEMA_ATTRIBUTE_STRING }, { "user", SECRET_SCHEMA_ATTRIBUTE_STRING }, { NULL, 0 } }
    };
    return &schema;
}

/* The attributes of one account (the table owns copies). */
static inline GHashTable *reveille_caldav_attributes(const char *url, const char *user) {
    GHashTable *table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    g_hash_table_insert(table, g_strdup("url"), g_strdup(url));
    g_hash_table_insert(table, g_strdup("user"), g_strdup(user));
    return table;
}
