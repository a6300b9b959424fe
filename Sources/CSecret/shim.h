#pragma once
// libsecret is opened with dlopen by SecretStore, when sync first needs the password, so that
// the agent without sync maps neither it nor libgcrypt behind it. Its headers are named from
// the include folder itself, as no pkg-config flags are given (they would link the library);
// they refuse to be included one by one unless told they are inside libsecret's own header.
#define __SECRET_INSIDE_HEADER__
#include <libsecret-1/libsecret/secret-schema.h>
#include <libsecret-1/libsecret/secret-password.h>
#undef __SECRET_INSIDE_HEADER__

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

// The types of the functions SecretStore looks up, taken from libsecret's own declarations.
typedef __typeof__(secret_password_storev) *ReveilleSecretPasswordStore;
typedef __typeof__(secret_password_store_finish) *ReveilleSecretPasswordStoreFinish;
typedef __typeof__(secret_password_lookupv) *ReveilleSecretPasswordLookup;
typedef __typeof__(secret_password_lookup_finish) *ReveilleSecretPasswordLookupFinish;
typedef __typeof__(secret_password_free) *ReveilleSecretPasswordFree;
typedef __typeof__(secret_password_clearv) *ReveilleSecretPasswordClear;
typedef __typeof__(secret_password_clear_finish) *ReveilleSecretPasswordClearFinish;
