/*
 * cpu_impl.h
 *		Every CPU backend loop for one element type.
 *
 * Included by cpu_backend.c once per type, with MP_T (element type), MP_U
 * (the unsigned type of its width), MP_LT and MP_KEY (mp_order.h's
 * comparison and key) and MP_NAME(x) (a name suffix) defined; undefines
 * them.
 */
#include "cpu_merge_impl.h"
#include "cpu_setop_impl.h"
#include "cpu_search_impl.h"
#include "cpu_sort_impl.h"

#undef MP_T
#undef MP_U
#undef MP_LT
#undef MP_KEY
#undef MP_NAME
