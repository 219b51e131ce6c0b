use super::*;

fn f(x: f32) -> i64 {
    i64::from(x.to_bits())
}
fn d(x: f64) -> i64 {
    x.to_bits() as i64
}
fn back(w: i64) -> f32 {
    f32::from_bits(w as u32)
}
fn bin32(op: FloatBin, x: f32, y: f32) -> i64 {
    binary(op, Float::F32, f(x), f(y))
}
fn cmp(name: &str, x: f32, y: f32) -> i64 {
    bin32(
        FloatBin::Cmp(FCmp::from_name(name).expect("a predicate")),
        x,
        y,
    )
}
const NAN32: i64 = 0x7fff_ffff;

#[test]
fn f32_addition_rounds_once_to_nearest_even_in_single_precision() {
    // 1 + 2^-24 is a tie between 1 and 1 + 2^-23: even is 1.
    assert_eq!(bin32(FloatBin::Add, 1.0, 2f32.powi(-24)), f(1.0));
    // Just above the tie rounds up.
    let above = 2f32.powi(-24) + 2f32.powi(-40);
    assert_eq!(bin32(FloatBin::Add, 1.0, above), f(1.0 + 2f32.powi(-23)));
    // 0.1 + 0.2 in single precision is not 0.3 rounded from the reals in double.
    assert_eq!(back(bin32(FloatBin::Add, 0.1, 0.2)), 0.1f32 + 0.2f32);
    // Each addition rounds: 2^24 + 1 + 1 stays 2^24 (a tie to even each
    // time), where the real sum 2^24 + 2 is a float.
    let big = 16_777_216.0f32;
    let once = bin32(FloatBin::Add, big, 1.0);
    assert_eq!(once, f(big));
    assert_eq!(binary(FloatBin::Add, Float::F32, once, f(1.0)), f(big));
    assert_eq!(f((f64::from(big) + 2.0) as f32), f(big + 2.0), "a float");
    // The bits are held zero-extended.
    assert!(bin32(FloatBin::Add, -1.0, -1.0) > 0);
}

#[test]
fn nan_is_unordered_and_canonical() {
    let nan = f32::from_bits(0xffc0_1234);
    assert_eq!(bin32(FloatBin::Add, nan, 1.0), NAN32, "canonical");
    assert_eq!(bin32(FloatBin::Div, 0.0, 0.0), NAN32);
    assert_eq!(bin32(FloatBin::Mul, f32::INFINITY, 0.0), NAN32);
    for p in ["oeq", "ogt", "oge", "olt", "ole", "one", "ord"] {
        assert_eq!(cmp(p, nan, 1.0), 0, "{p} is false on NaN");
        assert_eq!(cmp(p, 1.0, nan), 0, "{p} is false on NaN");
    }
    for p in ["ueq", "ugt", "uge", "ult", "ule", "une", "uno"] {
        assert_eq!(cmp(p, nan, nan), 1, "{p} is true on NaN");
    }
    assert_eq!(cmp("une", 1.0, 2.0), 1);
    assert_eq!(cmp("ueq", 1.0, 2.0), 0);
    assert_eq!(cmp("olt", 1.0, 2.0), 1);
    assert_eq!(cmp("oge", 1.0, 2.0), 0);
    assert_eq!(cmp("true", nan, 1.0), 1);
    assert_eq!(cmp("false", 1.0, 1.0), 0);
    // The bit operations keep a NaN's bits.
    let neg = unary(FloatUn::Neg, Float::F32, f(nan));
    assert_eq!(neg, 0x7fc0_1234);
}

#[test]
fn signed_zeros_compare_equal_but_keep_their_signs() {
    assert_eq!(cmp("oeq", -0.0, 0.0), 1);
    assert_eq!(cmp("olt", -0.0, 0.0), 0);
    assert_eq!(bin32(FloatBin::Add, -0.0, -0.0), f(-0.0));
    assert_eq!(bin32(FloatBin::Add, -0.0, 0.0), f(0.0));
    assert_eq!(bin32(FloatBin::Sub, 1.0, 1.0), f(0.0));
    assert_eq!(unary(FloatUn::Neg, Float::F32, f(0.0)), f(-0.0));
    assert_eq!(bin32(FloatBin::Min, 0.0, -0.0), f(-0.0));
    assert_eq!(bin32(FloatBin::Min, -0.0, 0.0), f(-0.0));
    assert_eq!(bin32(FloatBin::Max, -0.0, 0.0), f(0.0));
    assert_eq!(bin32(FloatBin::CopySign, 2.0, -0.0), f(-2.0));
    assert_eq!(unary(FloatUn::Abs, Float::F32, f(-0.0)), f(0.0));
}

#[test]
fn minnum_and_maxnum_ignore_one_nan() {
    assert_eq!(bin32(FloatBin::Min, f32::NAN, 3.0), f(3.0));
    assert_eq!(bin32(FloatBin::Max, 3.0, f32::NAN), f(3.0));
    assert_eq!(bin32(FloatBin::Min, f32::NAN, f32::NAN), NAN32);
    assert_eq!(bin32(FloatBin::Min, 1.0, 2.0), f(1.0));
    assert_eq!(bin32(FloatBin::Max, 1.0, 2.0), f(2.0));
}

#[test]
fn fma_rounds_once() {
    // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: the product alone rounds the
    // 2^-24 away (a tie to even), the fused form keeps it until the end.
    let a = 1.0 + 2f32.powi(-12);
    let c = -(1.0 + 2f32.powi(-11));
    let fused = fma(Float::F32, f(a), f(a), f(c));
    assert_eq!(back(fused), 2f32.powi(-24));
    let product = bin32(FloatBin::Mul, a, a);
    let separate = binary(FloatBin::Add, Float::F32, product, f(c));
    assert_eq!(back(separate), 0.0, "two roundings lose it");
    let fused64 = fma(Float::F64, d(0.1), d(10.0), d(-1.0));
    assert_eq!(f64::from_bits(fused64 as u64), 0.1f64.mul_add(10.0, -1.0));
    assert_ne!(f64::from_bits(fused64 as u64), 0.1 * 10.0 - 1.0);
}

#[test]
fn double_precision_and_remainder() {
    let r = binary(FloatBin::Div, Float::F64, d(1.0), d(3.0));
    assert_eq!(f64::from_bits(r as u64), 1.0 / 3.0);
    assert_eq!(binary(FloatBin::Rem, Float::F64, d(7.5), d(2.0)), d(1.5));
    assert_eq!(
        bin32(FloatBin::Rem, -7.5, 2.0),
        f(-1.5),
        "the dividend's sign"
    );
    assert_eq!(
        binary(FloatBin::Div, Float::F64, d(0.0), d(0.0)),
        0x7fff_ffff_ffff_ffff
    );
    assert_eq!(unary(FloatUn::Sqrt, Float::F64, d(2.0)), d(2f64.sqrt()));
    assert_eq!(unary(FloatUn::Sqrt, Float::F32, f(-1.0)), NAN32);
}

#[test]
fn rounding_to_integers() {
    let r = |op, x: f32| back(unary(op, Float::F32, f(x)));
    assert_eq!(r(FloatUn::Ceil, 1.25), 2.0);
    assert_eq!(r(FloatUn::Floor, -1.25), -2.0);
    assert_eq!(r(FloatUn::Trunc, -1.75), -1.0);
    assert_eq!(r(FloatUn::RoundEven, 2.5), 2.0);
    assert_eq!(r(FloatUn::Round, 2.5), 3.0);
    assert_eq!(r(FloatUn::RoundEven, -0.5).to_bits(), (-0.0f32).to_bits());
}

#[test]
fn conversions_to_integers_saturate_as_cvt_rzi() {
    let i32_ = Num::Int {
        bits: 32,
        signed: true,
    };
    let u32_ = Num::Int {
        bits: 32,
        signed: false,
    };
    let from = Num::Float(Float::F32);
    assert_eq!(convert(from, i32_, f(-2.75)), -2, "toward zero");
    assert_eq!(convert(from, i32_, f(3e9)), i64::from(i32::MAX));
    assert_eq!(convert(from, i32_, f(-3e9)), i64::from(i32::MIN));
    assert_eq!(convert(from, i32_, f(f32::NAN)), 0);
    assert_eq!(convert(from, u32_, f(-5.0)), 0);
    assert_eq!(convert(from, u32_, f(5e9)), i64::from(u32::MAX));
    let i64_ = Num::Int {
        bits: 64,
        signed: true,
    };
    let u64_ = Num::Int {
        bits: 64,
        signed: false,
    };
    assert_eq!(convert(Num::Float(Float::F64), i64_, d(1e300)), i64::MAX);
    assert_eq!(
        convert(Num::Float(Float::F64), u64_, d(1e300)),
        -1,
        "u64::MAX's bits"
    );
    let i8_ = Num::Int {
        bits: 8,
        signed: true,
    };
    assert_eq!(
        convert(from, i8_, f(1e6)),
        i64::from(i16::MAX),
        "saturates at 16 bits"
    );
}

#[test]
fn conversions_from_integers_and_between_formats_round_once() {
    let to32 = Num::Float(Float::F32);
    let s = Num::Int {
        bits: 64,
        signed: true,
    };
    let u = Num::Int {
        bits: 64,
        signed: false,
    };
    // 2^24 + 1 is a tie: even is 2^24.
    assert_eq!(convert(s, to32, (1 << 24) + 1), f(16777216.0));
    // Above 2^53, through f64 first would round twice.
    let x = (1i64 << 60) + (1 << 36) + 1;
    assert_eq!(convert(s, to32, x), f(x as f32));
    assert_eq!(convert(s, to32, -3), f(-3.0));
    assert_eq!(convert(u, to32, -1), f(u64::MAX as f32), "read as unsigned");
    let widened = convert(to32, Num::Float(Float::F64), f(0.1));
    assert_eq!(widened, d(f64::from(0.1f32)), "exact");
    let narrowed = convert(Num::Float(Float::F64), to32, d(0.1));
    assert_eq!(narrowed, f(0.1f32));
    assert_eq!(
        convert(Num::Float(Float::F64), to32, d(1e300)),
        f(f32::INFINITY)
    );
}

#[test]
fn predicates_are_named_as_llvm_encodes_them() {
    assert_eq!(FCmp::from_name("oge"), Some(FCmp(FCmp::GT | FCmp::EQ)));
    assert_eq!(FCmp::from_name("une"), Some(FCmp(14)));
    assert_eq!(FCmp::from_name("ult").map(FCmp::name), Some("ult"));
    assert_eq!(FCmp::from_name("lt"), None);
}
