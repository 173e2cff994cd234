// printf: each call reserves a record in the printf buffer with one atomic add and writes its
// call index and arguments there; the host formats the records when the command completes.
// The format string and %s arguments are constant strings, read here at translation time.
#include "passes/lower_to_shader.h"

namespace vkcl::k2s {

using spv::Op;

// The text of a pointer to a program-scope constant char array (through access chains,
// casts and copies), or false.
bool Lowering::constant_string(uint32_t in_pointer, std::string* text) const {
  const ir::Instruction* d = def(in_pointer);
  while (d && (d->opcode == Op::OpInBoundsPtrAccessChain || d->opcode == Op::OpPtrAccessChain ||
               d->opcode == Op::OpAccessChain || d->opcode == Op::OpInBoundsAccessChain ||
               d->opcode == Op::OpBitcast || d->opcode == Op::OpPtrCastToGeneric ||
               d->opcode == Op::OpCopyObject)) {
    if (d->opcode == Op::OpPtrAccessChain || d->opcode == Op::OpInBoundsPtrAccessChain ||
        d->opcode == Op::OpAccessChain || d->opcode == Op::OpInBoundsAccessChain) {
      for (size_t k = 1; k < d->operands.size(); ++k) {
        bool ok = false;
        if (constant_value(d->operands[k], &ok) != 0 || !ok) return false;
      }
    }
    d = def(d->operands[0]);
  }
  if (!d || d->opcode != Op::OpVariable || d->operands.size() < 2) return false;
  const ir::Instruction* init = def(d->operands[1]);
  if (!init || init->opcode != Op::OpConstantComposite) return false;
  text->clear();
  for (uint32_t c : init->operands) {
    bool ok = false;
    uint64_t ch = constant_value(c, &ok);
    if (!ok) return false;
    if (ch == 0) return true;
    text->push_back(char(ch));
  }
  return true;
}

bool Lowering::lower_printf(const ir::Instruction& i) {
  PrintfCall call;
  if (!constant_string(i.operands[2], &call.format))
    return fail("printf needs a constant format string: " + describe(i));
  struct Value {
    uint32_t in_id, v, out_type;  // in_id 0: |v| is already the value to store
    PrintfArg arg;
  };
  std::vector<Value> values;
  for (size_t a = 3; a < i.operands.size(); ++a) {
    PrintfArg arg;
    uint32_t in_id = i.operands[a];
    const ir::Instruction* d = def(in_id);
    const ir::Instruction* t = d ? def(d->type_id) : nullptr;
    if (t && t->opcode == Op::OpTypePointer) {
      if (constant_string(in_id, &arg.text)) {
        arg.kind = PrintfArg::String;
        call.args.push_back(arg);
        continue;
      }
      // Other pointers (%p) print their address (local/private ones as their offset).
      arg.component_bytes = 8;
      uint32_t v = value(in_id);
      if (shape_of(lower_type(d->type_id)).width == 32) v = emit(Op::OpUConvert, t_uint(64), {v});
      values.push_back({0, v, t_uint(64), arg});
      call.args.push_back(arg);
      call.record_bytes += 8;
      continue;
    }
    // Variadic floats and halves arrive promoted to double; the value itself is enough (and
    // needs no Float64 on the device).
    if (d && d->opcode == Op::OpFConvert) {
      Shape src = shape_of(lower_type(def(d->operands[0])->type_id));
      if (src.is_float && (src.width == 32 || src.width == 16)) in_id = d->operands[0];
    }
    uint32_t in_type = def(in_id)->type_id;
    Shape s = shape_of(lower_type(in_type));
    if (!s.ok) return fail("printf argument type not supported yet: " + describe(i));
    arg.kind = s.is_float ? PrintfArg::Float : PrintfArg::Int;
    arg.components = s.wide ? wide_count(in_type) : s.count;
    arg.component_bytes = s.width == 64 ? 8 : 4;
    values.push_back({in_id, 0, lower_type(in_type), arg});
    call.args.push_back(arg);
    call.record_bytes += arg.components * arg.component_bytes;
  }
  uint32_t index = uint32_t(printf_calls_.size());
  uint32_t size = call.record_bytes;
  printf_calls_.push_back(call);

  uint32_t u32 = t_uint(32), u64 = t_uint(64);
  uint32_t base = argument_slot(kPrintfSlot);
  uint32_t counter = emit(Op::OpConvertUToPtr, t_ptr(spv::StorageClass::PhysicalStorageBuffer, u32), {base});
  // Device scope, relaxed: the record only has to be visible when the command completes.
  uint32_t at = emit(Op::OpAtomicIAdd, u32, {counter, c_u32(uint32_t(spv::Scope::Device)), c_u32(0), c_u32(size)});
  uint32_t capacity = load_out(AddressFormat::Global64, add_offset(AddressFormat::Global64, base, c_u64(4)), u32, 4);
  uint32_t end = emit(Op::OpIAdd, u32, {at, c_u32(size)});
  uint32_t fits = emit(Op::OpULessThanEqual, t_bool(), {end, capacity});
  // A record that does not fit goes to the spare bytes after the capacity, never past them.
  uint32_t where = emit(Op::OpSelect, u32, {fits, at, capacity});
  uint32_t record = add_offset(AddressFormat::Global64, base,
                               emit(Op::OpIAdd, u64, {emit(Op::OpUConvert, u64, {where}), c_u64(8)}));
  store_out(AddressFormat::Global64, record, u32, c_u32(index), 4);
  uint32_t offset = 4;
  for (const auto& [in_id, v, out_type, arg] : values) {
    for (uint32_t c = 0; c < arg.components; ++c) {
      Shape s = shape_of(out_type);
      uint32_t x = in_id == 0 ? v : arg.components == 1 ? value(in_id) : component(in_id, c);
      uint32_t word_type = arg.component_bytes == 8 ? u64 : u32;
      uint32_t bits = 0;
      // Halves (%hf, %v4hf) are written as the floats they exactly are.
      if (s.is_float && s.width == 16) x = widen_half(x, t_float(32));
      if (s.is_float) bits = emit(Op::OpBitcast, word_type, {x});
      else if (s.width < 32) bits = emit(Op::OpUConvert, word_type, {x});
      else bits = x;
      uint32_t a = add_offset(AddressFormat::Global64, record, c_u64(offset));
      store_out(AddressFormat::Global64, a, word_type, bits, 4);
      offset += arg.component_bytes;
    }
  }
  uint32_t rt = lower_type(i.type_id);
  bind(i.result_id, rt, emit(Op::OpSelect, rt, {fits, c_uint(32, 0), c_uint(32, 0xffffffff)}));
  return !failed_;
}

}  // namespace vkcl::k2s
