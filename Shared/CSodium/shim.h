// libsodium (Debian: libsodium-dev): Argon2id and XChaCha20-Poly1305 for the geotag route format.
#ifndef CUSTODIAN_CSODIUM_SHIM_H
#define CUSTODIAN_CSODIUM_SHIM_H

#include <sodium.h>

#endif
