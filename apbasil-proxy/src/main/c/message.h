/*
 * The longest message any part of the native client writes (a setting's problem, a failure's reason): every
 * buffer that carries one to stderr and the FAILURE document is this size.
 */
#ifndef MESSAGE_H
#define MESSAGE_H

#define MESSAGE_MAX 8192

#endif
