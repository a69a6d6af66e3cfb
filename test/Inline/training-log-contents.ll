; -mlgo-training-log writes LLVM's log format: the 38 upstream features in
; LLVM's order, mlgo's extra features, then inlining_default and
; inlining_decision (as LLVM's development mode does). Values pinned here
; were checked by hand against the input IR.
;
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' -mlgo-default-policy \
; RUN:   -mlgo-training-log=%t.log %S/Inputs/mandatory.ll -o /dev/null
; RUN: mlgo log dump %t.log | FileCheck %s
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' -mlgo-default-policy \
; RUN:   -mlgo-training-log=%t.nest.log %S/Inputs/features.ll -o /dev/null
; RUN: mlgo log dump %t.nest.log | FileCheck %s --check-prefix=NEST
; Without extras, exactly the upstream features (+ default and decision).
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' -mlgo-default-policy \
; RUN:   -mlgo-extra-features=false -mlgo-training-log=%t.up.log \
; RUN:   %S/Inputs/mandatory.ll -o /dev/null
; RUN: mlgo log dump %t.up.log | FileCheck %s --check-prefix=UPSTREAM

; CHECK:      features: sroa_savings sroa_losses load_elimination call_penalty call_argument_setup load_relative_intrinsic lowered_call_arg_setup indirect_call_penalty jump_table_penalty case_cluster_penalty switch_default_dest_penalty switch_penalty unsimplified_common_instructions num_loops dead_blocks simplified_instructions constant_args constant_offset_ptr_args callsite_cost cold_cc_penalty last_call_to_static_bonus is_multiple_blocks nested_inlines nested_inline_cost_estimate threshold callee_basic_block_count callsite_height node_count nr_ctant_params cost_estimate edge_count caller_users caller_conditionally_executed_blocks caller_basic_block_count callee_conditionally_executed_blocks callee_users is_callee_avail_external is_caller_avail_external callee_ir_instructions caller_ir_instructions callee_is_local callee_is_linkonce callee_direct_calls call_site_loop_depth inlining_default inlining_decision
; CHECK-NEXT: context: {{$}}
; CHECK-NEXT: observation: 0
; CHECK:      call_penalty: 25
; CHECK:      threshold: 5
; CHECK-NEXT: callee_basic_block_count: 1
; CHECK-NEXT: callsite_height: 1
; CHECK-NEXT: node_count: 4
; CHECK-NEXT: nr_ctant_params: 0
; CHECK-NEXT: cost_estimate: -15000
; CHECK-NEXT: edge_count: 3
; CHECK-NEXT: caller_users: 1
; CHECK-NEXT: caller_conditionally_executed_blocks: 0
; CHECK-NEXT: caller_basic_block_count: 1
; CHECK-NEXT: callee_conditionally_executed_blocks: 0
; CHECK-NEXT: callee_users: 1
; CHECK-NEXT: is_callee_avail_external: 0
; CHECK-NEXT: is_caller_avail_external: 0
; CHECK-NEXT: callee_ir_instructions: 2
; CHECK-NEXT: caller_ir_instructions: 4
; CHECK-NEXT: callee_is_local: 1
; CHECK-NEXT: callee_is_linkonce: 0
; CHECK-NEXT: callee_direct_calls: 0
; CHECK-NEXT: call_site_loop_depth: 0
; CHECK-NEXT: inlining_default: 1
; CHECK-NEXT: inlining_decision: 1
; CHECK-NOT:  observation:

; NEST:      callee_ir_instructions: 4
; NEST-NEXT: caller_ir_instructions:
; NEST-NEXT: callee_is_local: 0
; NEST-NEXT: callee_is_linkonce: 1
; NEST-NEXT: callee_direct_calls: 1
; NEST-NEXT: call_site_loop_depth: 2

; With -mlgo-training-log-score, the module's IR instruction count when the
; inliner finishes follows the last observation. The heuristic inlines none
; of growth.ll's calls to @big, so the module keeps its 20 instructions:
; @big's 13 (6 calls, 6 arithmetic, ret) and 2 in each of the 4 callers.
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' -mlgo-default-policy \
; RUN:   -mlgo-training-log=%t.score.log -mlgo-training-log-score \
; RUN:   %S/Inputs/growth.ll -o /dev/null
; RUN: mlgo log dump %t.score.log | FileCheck %s --check-prefix=SCORE
; RUN: not opt -load-pass-plugin=%plugin -passes='default<Oz>' \
; RUN:   -mlgo-training-log-score %S/Inputs/growth.ll -o /dev/null 2>&1 \
; RUN:   | FileCheck %s --check-prefix=NOLOG

; SCORE:      score: {"name":"module_ir_size","type":"int64_t","port":0,"shape":[1]}
; SCORE:      observation: 3
; SCORE:      inlining_decision:
; SCORE-NEXT: outcome: 3
; SCORE-NEXT: module_ir_size: 20
; SCORE-NOT:  observation:
; NOLOG: LLVM ERROR: mlgo: -mlgo-training-log-score needs -mlgo-training-log

; UPSTREAM:      features: sroa_savings {{.*}} is_caller_avail_external inlining_default inlining_decision{{$}}
; UPSTREAM:      is_caller_avail_external: 0
; UPSTREAM-NEXT: inlining_default: 1
; UPSTREAM-NEXT: inlining_decision: 1
