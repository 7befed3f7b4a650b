/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aiodev tracepoints. The field names, types and order are a contract with
 * bpf/ (docs/design.md): it reads the classic tracepoint record as
 * struct trace_entry followed by these fields.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM aiodev

#if !defined(_AIODEV_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _AIODEV_TRACE_H

#include <linux/tracepoint.h>

DECLARE_EVENT_CLASS(aiodev_req_class,
	TP_PROTO(u64 id, s64 offset, u64 len, s64 res, u64 lat_ns,
		 u32 minor, u32 op, u32 api, u32 flags),
	TP_ARGS(id, offset, len, res, lat_ns, minor, op, api, flags),
	TP_STRUCT__entry(
		__field(u64, id)
		__field(s64, offset)
		__field(u64, len)
		__field(s64, res)
		__field(u64, lat_ns)
		__field(u32, minor)
		__field(u32, op)
		__field(u32, api)
		__field(u32, flags)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->offset = offset;
		__entry->len = len;
		__entry->res = res;
		__entry->lat_ns = lat_ns;
		__entry->minor = minor;
		__entry->op = op;
		__entry->api = api;
		__entry->flags = flags;
	),
	TP_printk("id=0x%llx offset=%lld len=%llu res=%lld lat_ns=%llu minor=%u op=%u api=%u flags=0x%x",
		  __entry->id, __entry->offset, __entry->len, __entry->res,
		  __entry->lat_ns, __entry->minor, __entry->op, __entry->api,
		  __entry->flags)
);

DEFINE_EVENT(aiodev_req_class, aiodev_submit,
	TP_PROTO(u64 id, s64 offset, u64 len, s64 res, u64 lat_ns,
		 u32 minor, u32 op, u32 api, u32 flags),
	TP_ARGS(id, offset, len, res, lat_ns, minor, op, api, flags));

DEFINE_EVENT(aiodev_req_class, aiodev_complete,
	TP_PROTO(u64 id, s64 offset, u64 len, s64 res, u64 lat_ns,
		 u32 minor, u32 op, u32 api, u32 flags),
	TP_ARGS(id, offset, len, res, lat_ns, minor, op, api, flags));

DEFINE_EVENT(aiodev_req_class, aiodev_cancel,
	TP_PROTO(u64 id, s64 offset, u64 len, s64 res, u64 lat_ns,
		 u32 minor, u32 op, u32 api, u32 flags),
	TP_ARGS(id, offset, len, res, lat_ns, minor, op, api, flags));

#endif /* _AIODEV_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE aiodev_trace
#include <trace/define_trace.h>
