#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

/// EVP_PKEY_PUBLIC_KEY is a macro expression, which Swift does not import.
static inline int gatehouse_evp_pkey_public_key_selection(void) {
    return EVP_PKEY_PUBLIC_KEY;
}

/// Parameter names and the P-256 group name as C string literals: OSSL_PARAM_BLD keeps the
/// pointers it is given until OSSL_PARAM_BLD_to_param, longer than a Swift string's temporary
/// C string lives.
static inline const char *gatehouse_param_rsa_n(void) { return OSSL_PKEY_PARAM_RSA_N; }
static inline const char *gatehouse_param_rsa_e(void) { return OSSL_PKEY_PARAM_RSA_E; }
static inline const char *gatehouse_param_group(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *gatehouse_param_public_key(void) { return OSSL_PKEY_PARAM_PUB_KEY; }
static inline const char *gatehouse_group_p256(void) { return SN_X9_62_prime256v1; }

/// Key type names for EVP_PKEY_CTX_new_from_name, which keeps the pointer in the context.
static inline const char *gatehouse_key_type_rsa(void) { return "RSA"; }
static inline const char *gatehouse_key_type_ec(void) { return "EC"; }
static inline const char *gatehouse_param_ec_pub_x(void) { return OSSL_PKEY_PARAM_EC_PUB_X; }
static inline const char *gatehouse_param_ec_pub_y(void) { return OSSL_PKEY_PARAM_EC_PUB_Y; }

/// The HMAC digest parameter's name and SHA-256's name, as C string literals for OSSL_PARAM.
static inline const char *gatehouse_param_mac_digest(void) { return OSSL_MAC_PARAM_DIGEST; }
static inline const char *gatehouse_digest_sha256(void) { return "SHA256"; }
