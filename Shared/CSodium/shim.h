// libsodium (Debian: libsodium-dev): boxes for the data vault's records, Argon2id and XChaCha20-Poly1305
// for passwords and the geotag route format.
#ifndef CUSTODIAN_CSODIUM_SHIM_H
#define CUSTODIAN_CSODIUM_SHIM_H

#include <sodium.h>

#endif
