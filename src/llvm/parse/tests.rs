use super::parse_module;
use crate::llvm::ir::*;

pub(crate) const SAMPLE: &str = include_str!("../testdata/sample.ll");

fn sample() -> Module {
    parse_module(SAMPLE).unwrap()
}

fn kernel(m: &Module) -> &Function {
    m.function("_Z6kernelPj").unwrap()
}

fn instr<'a>(f: &'a Function, result: &str) -> &'a Instr {
    f.instructions()
        .find(|i| i.result.as_deref() == Some(result))
        .unwrap_or_else(|| panic!("no %{result}"))
}

#[test]
fn module_level_items() {
    let m = sample();
    assert_eq!(m.source_filename.as_deref(), Some("kernel.cu"));
    assert_eq!(m.kernels, vec!["_Z6kernelPj".to_string()]);
    assert_eq!(m.functions.len(), 4);
    assert!(m.function("__nv_ceilf").unwrap().is_declaration());
    assert_eq!(
        m.struct_types["class.Packed"],
        Some(Type::Struct {
            fields: vec![
                Type::Array(4, Box::new(Type::Int(32))),
                Type::Int(64),
                Type::Array(4, Box::new(Type::Int(8)))
            ],
            packed: true
        })
    );
    assert_eq!(m.struct_types["struct.Opaque"], None);
    let tile = m.global("tile").unwrap();
    assert_eq!((tile.addrspace, tile.init.clone()), (3, Some(Value::Undef)));
    let flag = m.global("flag").unwrap();
    assert_eq!((flag.addrspace, flag.align), (1, Some(4)));
    assert_eq!(flag.init, Some(Value::Int(7)));
    assert_eq!(m.global("table").unwrap().addrspace, 4);
    assert_eq!(m.global("ext").unwrap().init, None);
    assert!(m.global("msg").unwrap().constant);
    assert_eq!(
        m.global("msg").unwrap().init,
        Some(Value::Bytes(b"ok\0".to_vec()))
    );
    assert_eq!(m.named_metadata["nvvm.annotations"], vec![8]);
    assert_eq!(
        m.metadata[&2].field("filename"),
        Some(&MdField::Str("kernel.cu".into()))
    );
    assert_eq!(m.metadata[&15].field("inlinedAt"), Some(&MdField::Ref(16)));
    assert_eq!(
        m.metadata[&10].field("spFlags"),
        Some(&MdField::Other(
            "DISPFlagDefinition | DISPFlagOptimized".into()
        ))
    );
}

#[test]
fn blocks_and_terminators() {
    let m = sample();
    let f = kernel(&m);
    assert_eq!(f.params.len(), 2);
    assert_eq!(f.dbg, Some(10));
    let names: Vec<_> = f.blocks.iter().map(|b| b.name.as_str()).collect();
    // The unlabelled entry block takes the number after the parameters.
    assert_eq!(names, ["2", "4", "11", "spin.exit"]);
    assert_eq!(
        f.blocks[0].terminator.kind,
        InstrKind::CondBr {
            then: "4".into(),
            els: "spin.exit".into()
        }
    );
    assert_eq!(
        f.blocks[1].terminator.kind,
        InstrKind::Switch {
            default: "spin.exit".into(),
            cases: vec![(0, "11".into()), (-1, "11".into())]
        }
    );
    assert_eq!(f.blocks[1].terminator.dbg, Some(15));
    assert_eq!(f.blocks[2].terminator.kind, InstrKind::Unreachable);
    assert_eq!(f.blocks[3].terminator.kind, InstrKind::Ret);
    let phi = instr(f, "12");
    assert_eq!(
        phi.kind,
        InstrKind::Phi {
            blocks: vec!["4".into(), "4".into()]
        }
    );
    assert_eq!(phi.operands[1].value, Value::Int(0));
}

#[test]
fn memory_and_atomics() {
    let m = sample();
    let f = kernel(&m);
    let rmw = instr(f, "5");
    let InstrKind::AtomicRmw { op, atomic, .. } = &rmw.kind else {
        panic!("{rmw:?}")
    };
    assert_eq!(
        (*op, atomic.ordering, atomic.scope.clone()),
        (RmwOp::Add, Ordering::SeqCst, None)
    );
    assert_eq!(rmw.ty, Type::Int(32));
    assert_eq!(rmw.dbg, Some(15));
    let Value::Expr(gep) = &rmw.operands[0].value else {
        panic!()
    };
    assert!(matches!(
        gep.kind,
        InstrKind::GetElementPtr { inbounds: true, .. }
    ));
    let Value::Expr(cast) = &gep.operands[0].value else {
        panic!()
    };
    assert_eq!(cast.kind, InstrKind::Cast(CastOp::AddrSpaceCast));
    assert_eq!(cast.operands[0].ty, Type::Ptr(1));
    let cas = instr(f, "6");
    assert_eq!(
        cas.kind,
        InstrKind::CmpXchg {
            weak: true,
            volatile: true,
            success: Atomic {
                ordering: Ordering::Acquire,
                scope: Some("block".into())
            },
            failure: Ordering::Monotonic,
            align: Some(4)
        }
    );
    assert_eq!(instr(f, "7").ty, Type::Int(1));
    assert_eq!(
        instr(f, "8").kind,
        InstrKind::Load {
            volatile: true,
            atomic: None,
            align: Some(4)
        }
    );
    let store = &f.blocks[1].instrs[4];
    assert_eq!(
        store.kind,
        InstrKind::Store {
            volatile: false,
            atomic: Some(Atomic {
                ordering: Ordering::Release,
                scope: Some("device".into())
            }),
            align: Some(4)
        }
    );
    assert_eq!(
        f.blocks[1].instrs[6].kind,
        InstrKind::Fence(Atomic {
            ordering: Ordering::AcqRel,
            scope: Some("block".into())
        })
    );
    assert_eq!(
        instr(f, "19").kind,
        InstrKind::Alloca {
            allocated: Type::Named("struct.Pair".into()),
            align: Some(8)
        }
    );
    assert_eq!(instr(f, "21").ty, Type::Int(64));
}

#[test]
fn calls_and_inline_asm() {
    let m = sample();
    let f = kernel(&m);
    let membar = &f.blocks[1].instrs[7];
    assert_eq!(
        membar.kind,
        InstrKind::Call {
            callee: Callee::Function("llvm.nvvm.membar.gl".into())
        }
    );
    let asm = &f.blocks[1].instrs[8];
    let InstrKind::Call {
        callee:
            Callee::Asm {
                template,
                constraints,
                sideeffect,
            },
    } = &asm.kind
    else {
        panic!("{asm:?}")
    };
    assert_eq!(template, "st.global.release.sys.b32 [$1], $0;");
    assert_eq!((constraints.as_str(), *sideeffect), ("r,l", true));
    assert_eq!(asm.operands.len(), 2);
    let two = instr(f, "10");
    assert!(
        matches!(&two.kind, InstrKind::Call { callee: Callee::Asm { template, .. } } if template.contains('\n'))
    );
    assert_eq!(
        two.ty,
        Type::Struct {
            fields: vec![Type::Int(32), Type::Int(32)],
            packed: false
        }
    );
    assert_eq!(instr(f, "23").ty, Type::Float);
    assert_eq!(
        instr(f, "17").operands[1].value,
        Value::Float("0x3FF0000000000000".into())
    );
}

#[test]
fn unsupported_constructs_are_named_with_their_line() {
    let cases = [
        (
            "define void @f() {\n  invoke void @g() to label %a unwind label %b\n}",
            2,
            "invoke",
        ),
        (
            "define void @f() {\n  %1 = load x86_fp80, ptr null\n  ret void\n}",
            2,
            "x86_fp80",
        ),
        ("@g = global i32* null", 1, "typed pointers"),
        ("define void @f() {\n  ret void", 2, "end of the file"),
        (
            "define void @f() {\n  %1 = add i32 1, 2\n}",
            3,
            "without a terminator",
        ),
        ("garbage here", 1, "garbage"),
        (
            "define void @f() {\n  %1 = atomicrmw frob ptr null, i32 1 seq_cst\n  ret void\n}",
            2,
            "frob",
        ),
        (
            "define void @f() {\n  fence weird\n  ret void\n}",
            2,
            "weird",
        ),
    ];
    for (text, line, what) in cases {
        let e = parse_module(text).unwrap_err();
        assert_eq!(e.line, line, "{text}: {e}");
        assert!(e.to_string().contains(what), "{text}: {e}");
    }
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let deep = format!(
        "@g = global {}i32{} zeroinitializer",
        "[1 x ".repeat(5000),
        "]".repeat(5000)
    );
    assert!(parse_module(&deep).unwrap_err().message.contains("nested"));
    let deep = format!("!0 = {}{}", "!{".repeat(5000), "}".repeat(5000));
    assert!(parse_module(&deep).is_err());
}

/// Truncations and byte mutations of the sample: each is parsed or
/// refused with an error, never a panic.
#[test]
fn mutated_input_never_panics() {
    let bytes = SAMPLE.as_bytes();
    for cut in (0..bytes.len()).step_by(7) {
        let _ = parse_module(&String::from_utf8_lossy(&bytes[..cut]));
    }
    let mut seed = 0x9e3779b97f4a7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let alphabet = b"%@!#$\"(){}[]<>,=*:;. x0123456789-ai";
    for _ in 0..1500 {
        let mut b = bytes.to_vec();
        for _ in 0..1 + next() % 4 {
            let at = (next() % b.len() as u64) as usize;
            match next() % 3 {
                0 => b[at] = alphabet[(next() % alphabet.len() as u64) as usize],
                1 => {
                    b.remove(at);
                }
                _ => b.insert(at, alphabet[(next() % alphabet.len() as u64) as usize]),
            }
        }
        let _ = parse_module(&String::from_utf8_lossy(&b));
    }
}
