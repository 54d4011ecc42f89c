/*
 * cpu_impl.h
 *		Every CPU backend loop for one element type.
 *
 * Included by cpu_backend.c once per type, with MP_T (element type), MP_U
 * (the unsigned type of its width), MP_LT and MP_KEY (mp_order.h's
 * comparison and key), MP_C (an unsigned type for a key and a run number,
 * cpu_kway_impl.h's) and MP_NAME(x) (a name suffix) defined; undefines them.
 */
#include "cpu_merge_impl.h"
#include "cpu_setop_impl.h"
#include "cpu_search_impl.h"
#include "cpu_sort_impl.h"
#include "cpu_kway_impl.h"

#undef MP_T
#undef MP_U
#undef MP_LT
#undef MP_KEY
#undef MP_C
#undef MP_NAME
