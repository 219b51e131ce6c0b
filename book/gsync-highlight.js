// Syntax highlighting for ```gsync blocks: the spec language, registered
// with the highlight.js that mdbook ships, then applied to the blocks that
// mdbook's own pass left plain (it runs before additional-js).
/* global hljs */
(function () {
    'use strict';
    if (typeof hljs === 'undefined') {
        return;
    }
    hljs.registerLanguage('gsync', function (hljs) {
        return {
            name: 'gsync',
            keywords: {
                keyword: 'if else while for do break continue return fn harness master all ' +
                    'param global shared local volatile const check critical phase progress assert ' +
                    'mutual_exclusion barrier capacity',
                type: 'bool u8 u16 u32 u64 i8 i16 i32 i64 int unsigned void',
                literal: 'true false blockIdx threadIdx nblocks threads_per_block warpSize laneId',
                built_in: 'atomicAdd atomicSub atomicExch atomicCAS atomicInc atomicDec atomicMin ' +
                    'atomicMax atomicAnd atomicOr atomicXor __threadfence __threadfence_block ' +
                    '__threadfence_system __syncthreads __syncwarp __kernel_boundary backoff ' +
                    'ldslk stsul'
            },
            contains: [
                {
                    // the header: //! key: value
                    className: 'meta',
                    begin: '//!',
                    end: '$'
                },
                hljs.C_LINE_COMMENT_MODE,
                hljs.C_BLOCK_COMMENT_MODE,
                hljs.C_NUMBER_MODE,
                hljs.QUOTE_STRING_MODE,
                {
                    className: 'title',
                    begin: '\\b(fn|harness)\\s+',
                    end: '[({]',
                    excludeBegin: true,
                    excludeEnd: true
                }
            ]
        };
    });
    document.querySelectorAll('code.language-gsync').forEach(function (block) {
        block.textContent = block.textContent; // drop any earlier markup
        hljs.highlightBlock(block);
    });
})();
